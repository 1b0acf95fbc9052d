package loadgen

import (
	"fmt"
	"math"
	"time"
)

// effective is the official TestSettingsInternal: the requested settings
// normalized per scenario (samples per query, target QPS, target latency,
// target duration used to pre-generate queries, and the Offline coalescing
// into one query).
type effective struct {
	requested TestSettings
	scenario  Scenario
	mode      Mode

	samplesPerQuery         uint64
	targetQPS               float64
	targetLatency           time.Duration
	targetLatencyPercentile float64
	maxAsyncQueries         uint64
	targetDuration          time.Duration
	minDuration             time.Duration
	maxDuration             time.Duration
	minQueryCount           uint64
	maxQueryCount           uint64
	minSampleCount          uint64

	qslRNGSeed                uint64
	sampleIndexRNGSeed        uint64
	scheduleRNGSeed           uint64
	accuracyLogRNGSeed        uint64
	accuracyLogProbability    float64
	accuracyLogSamplingTarget uint64
	printTimestamps           bool
	performanceIssueUnique    bool
	performanceIssueSame      bool
	performanceIssueSameIndex uint64
	performanceSampleCount    uint64
	// accuracySampleCount is how many of the QSL's first samples an
	// accuracy run covers (before capping at the QSL's total).
	accuracySampleCount uint64

	sampleConcatenatePermutation bool
	useTokenLatencies            bool
	serverTTFTLatency            int64
	serverTPOTLatency            int64
	inferTokenLatencies          bool
	tokenLatencyScalingFactor    int64
	useGroupedQSL                bool
}

// settingsError is an error the official LoadGen logs (error_invalid_test_
// settings) while normalizing settings, then carries on.
type settingsError string

// seconds is the official DurationToSeconds of a duration kept in
// milliseconds (a count divided by 1000 in double).
func secondsOfMillis(d time.Duration) float64 {
	return float64(d.Milliseconds()) / 1000
}

// doubleToUint64 converts like a C++ static_cast on the values the LoadGen
// produces, saturating instead of being undefined out of range.
func doubleToUint64(v float64) uint64 {
	switch {
	case !(v > 0):
		return 0
	case v >= math.MaxUint64:
		return math.MaxUint64
	}
	return uint64(v)
}

// newEffective normalizes req for a QSL reporting qslPerformanceCount and
// qslTotalCount, in the order of the official TestSettingsInternal
// constructor.
func newEffective(req TestSettings, qslPerformanceCount, qslTotalCount uint64) (effective, []settingsError) {
	var errs []settingsError
	e := effective{
		requested:                 req,
		scenario:                  req.Scenario,
		mode:                      req.Mode,
		samplesPerQuery:           1,
		targetQPS:                 1,
		targetDuration:            req.MinDuration.Truncate(time.Millisecond),
		minDuration:               req.MinDuration.Truncate(time.Millisecond),
		maxDuration:               req.MaxDuration.Truncate(time.Millisecond),
		minQueryCount:             req.MinQueryCount,
		maxQueryCount:             req.MaxQueryCount,
		qslRNGSeed:                req.QSLRNGSeed,
		sampleIndexRNGSeed:        req.SampleIndexRNGSeed,
		scheduleRNGSeed:           req.ScheduleRNGSeed,
		accuracyLogRNGSeed:        req.AccuracyLogRNGSeed,
		accuracyLogProbability:    req.AccuracyLogProbability,
		accuracyLogSamplingTarget: req.AccuracyLogSamplingTarget,
		printTimestamps:           req.PrintTimestamps,
		performanceIssueUnique:    req.PerformanceIssueUnique,
		performanceIssueSame:      req.PerformanceIssueSame,
		performanceIssueSameIndex: req.PerformanceIssueSameIndex,
		useTokenLatencies:         req.UseTokenLatencies,
		serverTTFTLatency:         int64(req.ServerTTFTLatency),
		serverTPOTLatency:         int64(req.ServerTPOTLatency),
		inferTokenLatencies:       req.InferTokenLatencies,
		tokenLatencyScalingFactor: int64(req.TokenLatencyScalingFactor),
		useGroupedQSL:             req.UseGroupedQSL,
	}
	switch req.Scenario {
	case SingleStream:
		e.targetQPS = 1e9 / float64(req.SingleStreamExpectedLatency)
		e.maxAsyncQueries = 1
		e.targetLatencyPercentile = req.SingleStreamTargetLatencyPercentile
	case MultiStream:
		e.targetQPS = 1e9 / float64(req.MultiStreamExpectedLatency)
		e.maxAsyncQueries = 1
		e.targetLatencyPercentile = req.MultiStreamTargetLatencyPercentile
	case Server:
		if req.ServerTargetQPS >= 0 {
			e.targetQPS = req.ServerTargetQPS
		} else {
			errs = append(errs, settingsError(fmt.Sprintf(
				"Invalid value for server_target_qps requested. requested: %s using: %s",
				formatDouble(req.ServerTargetQPS), formatDouble(e.targetQPS))))
		}
		e.targetLatency = req.ServerTargetLatency
		e.targetLatencyPercentile = req.ServerTargetLatencyPercentile
		e.maxAsyncQueries = req.ServerMaxAsyncQueries
	case Offline:
		// Not used in Offline; set as the official does to avoid garbage.
		e.targetLatencyPercentile = 0.99
		if req.OfflineExpectedQPS >= 0 {
			e.targetQPS = req.OfflineExpectedQPS
		} else {
			errs = append(errs, settingsError(fmt.Sprintf(
				"Invalid value for offline_expected_qps requested. requested: %s using: %s",
				formatDouble(req.OfflineExpectedQPS), formatDouble(e.targetQPS))))
		}
		e.maxAsyncQueries = 1
	}

	e.performanceSampleCount = req.PerformanceSampleCountOverride
	if e.performanceSampleCount == 0 {
		e.performanceSampleCount = qslPerformanceCount
	}
	e.accuracySampleCount = req.AccuracySampleCountOverride
	if e.accuracySampleCount == 0 {
		e.accuracySampleCount = qslTotalCount
	}
	e.sampleConcatenatePermutation = req.SampleConcatenatePermutation

	if req.Scenario == MultiStream {
		e.samplesPerQuery = req.MultiStreamSamplesPerQuery
	}

	if req.Scenario == Offline {
		// 10% slack so the SUT runs past the minimum duration.
		const slack = 1.1
		target := doubleToUint64(slack * secondsOfMillis(e.targetDuration) * e.targetQPS)
		if req.PerformanceIssueUnique {
			e.samplesPerQuery = e.performanceSampleCount
		} else {
			e.samplesPerQuery = max(e.minQueryCount, target)
		}
		e.minQueryCount = 1
		e.targetDuration = 0
	}

	// Equal issue in SingleStream (3D-UNet): at least twice the queries the
	// duration needs, rounded up to a multiple of the QSL's count.
	if e.sampleConcatenatePermutation && req.Scenario == SingleStream {
		const slack = 2.0
		expected := doubleToUint64(slack * secondsOfMillis(e.targetDuration) * e.targetQPS)
		e.minQueryCount = max(e.minQueryCount, expected)
		if qslPerformanceCount > 0 {
			e.minQueryCount += qslPerformanceCount - e.minQueryCount%qslPerformanceCount
		}
	}

	e.minSampleCount = e.minQueryCount * e.samplesPerQuery

	if req.PerformanceIssueSame && req.PerformanceIssueSameIndex >= e.performanceSampleCount {
		errs = append(errs, settingsError(fmt.Sprintf(
			"Sample Idx to be repeated in performance_issue_same mode cannot be greater than loaded performance_sample_count. performance_issue_same_index: %d performance_sample_count: %d",
			req.PerformanceIssueSameIndex, e.performanceSampleCount)))
	}
	if req.PerformanceIssueUnique && req.PerformanceIssueSame {
		errs = append(errs, settingsError(
			"Performance_issue_unique and performance_issue_same, both cannot be true at the same time. performance_issue_unique: 1 performance_issue_same: 1"))
	}
	return e, errs
}
