package loadgen

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// TestSettings are the parameters of a run, field for field those of the
// official LoadGen's mlperf::TestSettings, with the same defaults
// ([DefaultTestSettings]) and meaning. Durations the official keeps as
// integer (or double) milli- or nanoseconds are [time.Duration] here; the
// logs print them in the official units.
//
// Settings are usually built from DefaultTestSettings plus mlperf.conf,
// user.conf and audit.config ([Config.Apply]). A TestSettings value is plain
// data: nothing in this package modifies the caller's copy.
type TestSettings struct {
	// Scenario and Mode select what is run.
	Scenario Scenario
	Mode     Mode

	// SingleStreamExpectedLatency is a hint used to pre-generate enough
	// queries for the minimum duration (single_stream_expected_latency_ns).
	SingleStreamExpectedLatency time.Duration
	// SingleStreamTargetLatencyPercentile is the latency percentile
	// reported as the result (single_stream_target_latency_percentile).
	SingleStreamTargetLatencyPercentile float64

	// MultiStreamExpectedLatency is a hint used to pre-generate enough
	// queries (multi_stream_expected_latency_ns); it is a query latency.
	MultiStreamExpectedLatency time.Duration
	// MultiStreamTargetLatencyPercentile is the query latency percentile
	// reported as the result (multi_stream_target_latency_percentile).
	MultiStreamTargetLatencyPercentile float64
	// MultiStreamSamplesPerQuery is the number of samples in each query
	// (multi_stream_samples_per_query).
	MultiStreamSamplesPerQuery uint64

	// ServerTargetQPS is the mean rate of the Poisson arrival process and
	// the lower bound of FindPeakPerformance (server_target_qps).
	ServerTargetQPS float64
	// ServerTargetLatency is the latency bound (server_target_latency_ns).
	ServerTargetLatency time.Duration
	// ServerTargetLatencyPercentile is the percentile the bound applies to
	// (server_target_latency_percentile).
	ServerTargetLatencyPercentile float64
	// ServerCoalesceQueries issues every query whose scheduled time has
	// passed as one query (server_coalesce_queries).
	ServerCoalesceQueries bool
	// ServerFindPeakQPSDecimalsOfPrecision ends FindPeakPerformance once the
	// bounds agree to this many decimals
	// (server_find_peak_qps_decimals_of_precision).
	ServerFindPeakQPSDecimalsOfPrecision int
	// ServerFindPeakQPSBoundaryStepSize widens the upper bound of
	// FindPeakPerformance by this fraction of the QPS
	// (server_find_peak_qps_boundary_step_size).
	ServerFindPeakQPSBoundaryStepSize float64
	// ServerMaxAsyncQueries ends a run early once more queries than this
	// are outstanding; 0 means no limit (server_max_async_queries).
	ServerMaxAsyncQueries uint64
	// ServerNumIssueQueryThreads is accepted and logged for compatibility;
	// this LoadGen always issues from one goroutine, which is fast enough
	// to need no more (server_num_issue_query_threads).
	ServerNumIssueQueryThreads uint64
	// ServerConstantGen spaces Server queries evenly at 1/ServerTargetQPS
	// instead of exponentially (server_constant_gen).
	ServerConstantGen bool

	// OfflineExpectedQPS sizes the Offline query: 10% more samples than the
	// minimum duration needs at this rate (offline_expected_qps).
	OfflineExpectedQPS float64
	// SampleConcatenatePermutation ("equal issue") covers the loaded samples
	// evenly with concatenated permutations
	// (sample_concatenate_permutation).
	SampleConcatenatePermutation bool

	// The run lasts until both MinDuration and MinQueryCount are reached,
	// or until either MaxDuration or MaxQueryCount is (0 means no limit).
	MinDuration   time.Duration
	MaxDuration   time.Duration
	MinQueryCount uint64
	MaxQueryCount uint64

	// QSLRNGSeed chooses the loadable sample sets (qsl_rng_seed).
	QSLRNGSeed uint64
	// SampleIndexRNGSeed chooses the order of samples in queries
	// (sample_index_rng_seed).
	SampleIndexRNGSeed uint64
	// ScheduleRNGSeed drives the Server Poisson process
	// (schedule_rng_seed).
	ScheduleRNGSeed uint64
	// AccuracyLogRNGSeed chooses which responses are logged in performance
	// mode (accuracy_log_rng_seed).
	AccuracyLogRNGSeed uint64
	// AccuracyLogProbability is the probability that a response is logged
	// in performance mode (accuracy_log_probability).
	AccuracyLogProbability float64
	// AccuracyLogSamplingTarget, when non-zero, sets that probability so
	// that about this many responses are logged (TEST01)
	// (accuracy_log_sampling_target).
	AccuracyLogSamplingTarget uint64

	// Test05 replaces the three seeds with the Test05 ones and forces
	// PerformanceOnly (test05, test05_*_rng_seed).
	Test05                   bool
	Test05QSLRNGSeed         uint64
	Test05SampleIndexRNGSeed uint64
	Test05ScheduleRNGSeed    uint64

	// UseGroupedQSL issues whole groups of samples ([GroupedQSL])
	// (use_grouped_qsl).
	UseGroupedQSL bool

	// PrintTimestamps writes the performance interval's start and stop
	// times to LogSettings.Console (print_timestamps).
	PrintTimestamps bool
	// PerformanceIssueUnique issues every loaded sample exactly once
	// (TEST04) (performance_issue_unique).
	PerformanceIssueUnique bool
	// PerformanceIssueSame issues the same sample over and over (TEST04)
	// (performance_issue_same).
	PerformanceIssueSame bool
	// PerformanceIssueSameIndex is the position in the loaded set of the
	// sample PerformanceIssueSame repeats (performance_issue_same_index).
	PerformanceIssueSameIndex uint64
	// PerformanceSampleCountOverride replaces the QSL's
	// PerformanceSampleCount when non-zero
	// (performance_sample_count_override).
	PerformanceSampleCountOverride uint64
	// AccuracySampleCountOverride is how many samples an accuracy run
	// covers, indices [0, n) of the QSL, when non-zero; zero covers the
	// whole QSL (accuracy_sample_count_override).
	AccuracySampleCountOverride uint64

	// UseTokenLatencies measures time to first token and time per output
	// token (use_token_latencies).
	UseTokenLatencies bool
	// ServerTTFTLatency and ServerTPOTLatency bound the token latencies in
	// the Server scenario (server_ttft_latency, server_tpot_latency).
	ServerTTFTLatency time.Duration
	ServerTPOTLatency time.Duration
	// InferTokenLatencies reports tokens per second as samples per second
	// times TokenLatencyScalingFactor (infer_token_latencies,
	// token_latency_scaling_factor).
	InferTokenLatencies       bool
	TokenLatencyScalingFactor uint64
}

// DefaultTestSettings returns the official LoadGen's defaults.
func DefaultTestSettings() TestSettings {
	return TestSettings{
		Scenario:                             SingleStream,
		Mode:                                 PerformanceOnly,
		SingleStreamExpectedLatency:          time.Millisecond,
		SingleStreamTargetLatencyPercentile:  0.90,
		MultiStreamExpectedLatency:           8 * time.Millisecond,
		MultiStreamTargetLatencyPercentile:   0.99,
		MultiStreamSamplesPerQuery:           8,
		ServerTargetQPS:                      1,
		ServerTargetLatency:                  100 * time.Millisecond,
		ServerTargetLatencyPercentile:        0.99,
		ServerFindPeakQPSDecimalsOfPrecision: 1,
		ServerFindPeakQPSBoundaryStepSize:    1,
		OfflineExpectedQPS:                   1,
		MinDuration:                          10 * time.Second,
		MinQueryCount:                        100,
		ServerTTFTLatency:                    100 * time.Millisecond,
		ServerTPOTLatency:                    100 * time.Millisecond,
	}
}

// ErrInvalidSettings is wrapped by every error [TestSettings.Validate]
// returns.
var ErrInvalidSettings = errors.New("invalid test settings")

// Validate reports settings the official LoadGen cannot run either: they
// make it divide by zero, index past its arrays or wait forever, and
// settings whose schedule would be larger than [MaxScheduledSamples] or
// longer than [MaxScheduleSpan] (the official allocates until it fails).
// Values it tolerates with an error in the detail log (a negative target
// QPS) are left to the run, which logs the same error.
func (s TestSettings) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidSettings}, args...)...))
	}
	if !s.Scenario.valid() {
		bad("unknown scenario %d", int(s.Scenario))
	}
	if !s.Mode.valid() {
		bad("unknown mode %d", int(s.Mode))
	}
	percentile := func(name string, p float64) {
		if !(p >= 0 && p < 1) {
			bad("%s = %v, want a fraction in [0, 1)", name, p)
		}
	}
	switch s.Scenario {
	case SingleStream:
		percentile("single_stream_target_latency_percentile", s.SingleStreamTargetLatencyPercentile)
		if s.SingleStreamExpectedLatency <= 0 {
			bad("single_stream_expected_latency_ns = %d, want > 0", s.SingleStreamExpectedLatency.Nanoseconds())
		}
	case MultiStream:
		percentile("multi_stream_target_latency_percentile", s.MultiStreamTargetLatencyPercentile)
		if s.MultiStreamExpectedLatency <= 0 {
			bad("multi_stream_expected_latency_ns = %d, want > 0", s.MultiStreamExpectedLatency.Nanoseconds())
		}
		if s.MultiStreamSamplesPerQuery == 0 {
			bad("multi_stream_samples_per_query = 0, want > 0")
		}
	case Server:
		percentile("server_target_latency_percentile", s.ServerTargetLatencyPercentile)
		if s.ServerTargetQPS == 0 || math.IsNaN(s.ServerTargetQPS) || math.IsInf(s.ServerTargetQPS, 0) {
			bad("server_target_qps = %v, want a finite non-zero rate", s.ServerTargetQPS)
		}
		if s.Mode == FindPeakPerformance && !(s.ServerFindPeakQPSBoundaryStepSize > 0) {
			bad("server_find_peak_qps_boundary_step_size = %v, want > 0", s.ServerFindPeakQPSBoundaryStepSize)
		}
	case Offline:
		if math.IsNaN(s.OfflineExpectedQPS) || math.IsInf(s.OfflineExpectedQPS, 0) {
			bad("offline_expected_qps = %v, want a finite rate", s.OfflineExpectedQPS)
		}
	}
	if s.MinDuration < 0 || s.MaxDuration < 0 {
		bad("negative min_duration or max_duration")
	}
	if math.IsNaN(s.AccuracyLogProbability) {
		bad("accuracy_log_probability is NaN")
	}
	if err := s.checkSchedule(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
