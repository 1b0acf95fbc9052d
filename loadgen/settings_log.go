package loadgen

// logSettings writes the official requested_* and effective_* detail keys
// (LogRequestedTestSettings and LogEffectiveSettings).
func (e *effective) logSettings(l *logs) {
	const file = "loadgen/settings_log.go"
	d := func(key string, v value) { l.detail(key, v, levelInfo, file) }
	r := &e.requested
	d("requested_scenario", vString(r.Scenario.String()))
	d("requested_test_mode", vString(r.Mode.String()))
	switch r.Scenario {
	case SingleStream:
		d("requested_single_stream_expected_latency_ns", vDouble(float64(r.SingleStreamExpectedLatency)))
		d("requested_single_stream_target_latency_percentile", vDouble(r.SingleStreamTargetLatencyPercentile))
	case MultiStream:
		d("requested_multi_stream_expected_latency_ns", vDouble(float64(r.MultiStreamExpectedLatency)))
		d("requested_multi_stream_target_latency_percentile", vDouble(r.MultiStreamTargetLatencyPercentile))
		d("requested_multi_stream_samples_per_query", vUint(r.MultiStreamSamplesPerQuery))
	case Server:
		d("requested_server_target_qps", vDouble(r.ServerTargetQPS))
		d("requested_server_target_latency_ns", vInt(int64(r.ServerTargetLatency)))
		d("requested_server_target_latency_percentile", vDouble(r.ServerTargetLatencyPercentile))
		d("requested_server_coalesce_queries", vBool(r.ServerCoalesceQueries))
		d("requested_server_find_peak_qps_decimals_of_precision", vInt(int64(r.ServerFindPeakQPSDecimalsOfPrecision)))
		d("requested_server_find_peak_qps_boundary_step_size", vDouble(r.ServerFindPeakQPSBoundaryStepSize))
		d("requested_server_max_async_queries", vUint(r.ServerMaxAsyncQueries))
		d("requested_server_num_issue_query_threads", vUint(r.ServerNumIssueQueryThreads))
	case Offline:
		d("requested_offline_expected_qps", vDouble(r.OfflineExpectedQPS))
	}
	d("requested_min_duration_ms", vInt(r.MinDuration.Milliseconds()))
	d("requested_max_duration_ms", vInt(r.MaxDuration.Milliseconds()))
	d("requested_min_query_count", vUint(r.MinQueryCount))
	d("requested_max_query_count", vUint(r.MaxQueryCount))
	d("requested_qsl_rng_seed", vUint(r.QSLRNGSeed))
	d("requested_sample_index_rng_seed", vUint(r.SampleIndexRNGSeed))
	d("requested_schedule_rng_seed", vUint(r.ScheduleRNGSeed))
	d("requested_accuracy_log_rng_seed", vUint(r.AccuracyLogRNGSeed))
	d("requested_accuracy_log_probability", vDouble(r.AccuracyLogProbability))
	d("requested_accuracy_log_sampling_target", vUint(r.AccuracyLogSamplingTarget))
	d("requested_print_timestamps", vBool(r.PrintTimestamps))
	d("requested_performance_issue_unique", vBool(r.PerformanceIssueUnique))
	d("requested_performance_issue_same", vBool(r.PerformanceIssueSame))
	d("requested_performance_issue_same_index", vUint(r.PerformanceIssueSameIndex))
	d("requested_performance_sample_count_override", vUint(r.PerformanceSampleCountOverride))
	d("requested_accuracy_sample_count_override", vUint(r.AccuracySampleCountOverride))
	d("requested_sample_concatenate_permutation", vBool(r.SampleConcatenatePermutation))
	if r.UseTokenLatencies {
		d("requested_use_token_latencies", vBool(r.UseTokenLatencies))
		if r.Scenario != Offline {
			d("requested_server_ttft_latency", vInt(int64(r.ServerTTFTLatency)))
			d("requested_server_tpot_latency", vInt(int64(r.ServerTPOTLatency)))
		}
	}

	d("effective_scenario", vString(e.scenario.String()))
	d("effective_test_mode", vString(e.mode.String()))
	d("effective_samples_per_query", vUint(e.samplesPerQuery))
	d("effective_target_qps", vDouble(e.targetQPS))
	d("effective_target_latency_ns", vInt(int64(e.targetLatency)))
	d("effective_target_latency_percentile", vDouble(e.targetLatencyPercentile))
	d("effective_max_async_queries", vUint(e.maxAsyncQueries))
	d("effective_target_duration_ms", vInt(e.targetDuration.Milliseconds()))
	d("effective_min_duration_ms", vInt(e.minDuration.Milliseconds()))
	d("effective_max_duration_ms", vInt(e.maxDuration.Milliseconds()))
	d("effective_min_query_count", vUint(e.minQueryCount))
	d("effective_max_query_count", vUint(e.maxQueryCount))
	d("effective_min_sample_count", vUint(e.minSampleCount))
	d("effective_qsl_rng_seed", vUint(e.qslRNGSeed))
	d("effective_sample_index_rng_seed", vUint(e.sampleIndexRNGSeed))
	d("effective_schedule_rng_seed", vUint(e.scheduleRNGSeed))
	d("effective_accuracy_log_rng_seed", vUint(e.accuracyLogRNGSeed))
	d("effective_accuracy_log_probability", vDouble(e.accuracyLogProbability))
	d("effective_accuracy_log_sampling_target", vUint(e.accuracyLogSamplingTarget))
	d("effective_print_timestamps", vBool(e.printTimestamps))
	d("effective_performance_issue_unique", vBool(e.performanceIssueUnique))
	d("effective_performance_issue_same", vBool(e.performanceIssueSame))
	d("effective_performance_issue_same_index", vUint(e.performanceIssueSameIndex))
	d("effective_performance_sample_count", vUint(e.performanceSampleCount))
	d("effective_accuracy_sample_count", vUint(e.accuracySampleCount))
	d("effective_sample_concatenate_permutation", vBool(e.sampleConcatenatePermutation))
}
