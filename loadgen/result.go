package loadgen

import (
	"slices"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/loadgen/internal/earlystop"
)

// Result is what a test measured: everything the summary log shows, typed.
type Result struct {
	Scenario Scenario
	// Mode is the mode that ran (Test05 forces PerformanceOnly).
	Mode    Mode
	SUTName string
	// Valid is the verdict: the performance result is valid (official
	// rules) and the SUT caused no runtime error.
	Valid bool
	// Performance is the performance-mode result; nil for AccuracyOnly.
	Performance *PerformanceResult
	// AccuracySamples counts the responses of the accuracy pass.
	AccuracySamples int
	// Errors and Warnings are the error and warning entries of the detail
	// log, as "key: value".
	Errors   []string
	Warnings []string
	// LateResponses counts responses that arrived after the test ended.
	LateResponses int64
}

// Percentile is one reported percentile of a latency distribution.
type Percentile struct {
	// Fraction is the percentile as a fraction (0.99 for the 99th).
	Fraction float64
	Latency  time.Duration
}

// LatencyStats are the official statistics of a latency distribution:
// integer mean, and percentiles picked at index floor(n * p) of the sorted
// latencies.
type LatencyStats struct {
	Count       int
	Min, Max    time.Duration
	Mean        time.Duration
	Percentiles []Percentile
}

// At returns the latency at the given reported fraction, or 0.
func (s LatencyStats) At(fraction float64) time.Duration {
	for _, p := range s.Percentiles {
		if p.Fraction == fraction {
			return p.Latency
		}
	}
	return 0
}

// PerformanceResult is the outcome of a performance pass.
type PerformanceResult struct {
	// Valid is the official "Result is : VALID", additionally requiring
	// that the SUT caused no runtime error.
	Valid bool
	// InvalidReasons are the recommendations the summary prints when the
	// result is invalid.
	InvalidReasons []string

	// MetricName and Metric are the scenario's headline result, as the
	// summary's first result line labels it.
	MetricName string
	Metric     float64

	HasPerfConstraints bool
	PerfConstraintsMet bool
	MinDurationMet     bool
	MinQueriesMet      bool
	EarlyStoppingMet   bool
	// EarlyStopping is the early stopping recommendation text; with token
	// latencies, EarlyStoppingTTFT and EarlyStoppingTPOT instead.
	EarlyStopping     string
	EarlyStoppingTTFT string
	EarlyStoppingTPOT string
	// EarlyStoppingLatency is the early stopping estimate of the target
	// percentile (SingleStream, MultiStream); EarlyStopping99 the 99th
	// percentile estimate SingleStream also reports.
	EarlyStoppingLatency time.Duration
	EarlyStopping99      time.Duration

	TargetQPS               float64
	TargetLatency           time.Duration
	TargetLatencyPercentile float64
	// TargetPercentileLatency is the latency at TargetLatencyPercentile
	// (of queries in MultiStream).
	TargetPercentileLatency time.Duration

	QueriesIssued    uint64
	SamplesCompleted uint64
	// OverLatencyCount counts Server samples over the latency bound.
	OverLatencyCount uint64
	// RuntimeErrors counts what the SUT did wrong: invalid or missing
	// responses, a failed IssueQuery, a canceled run.
	RuntimeErrors int

	Latency      LatencyStats
	QueryLatency *LatencyStats // MultiStream

	// Rates, as the summary computes them.
	SamplesPerSecond          float64 // Offline
	CompletedSamplesPerSecond float64 // Server
	ScheduledSamplesPerSecond float64 // Server
	QPSWithLoadgenOverhead    float64 // SingleStream
	QPSWithoutLoadgenOverhead float64 // SingleStream

	// Token latencies (UseTokenLatencies).
	Tokens             uint64
	FirstToken         *LatencyStats
	TimePerOutputToken *LatencyStats
	// FirstTokenBound and TimePerOutputTokenBound are, in Server, the
	// time to first token and the time per output token against their
	// bounds, with their early stopping estimates.
	FirstTokenBound         *TokenBound
	TimePerOutputTokenBound *TokenBound

	// Duration is from the first issue to the last response.
	Duration time.Duration
	// IssueDelay is, in Server, how late queries were issued against
	// their scheduled times (latencies are measured from the scheduled
	// time, so lateness counts against the SUT).
	IssueDelay *LatencyStats
	// PeakQPS is the Server QPS FindPeakPerformance found.
	PeakQPS float64

	// GroupLatency describes the summed latency of each whole group issued
	// (use_grouped_qsl); GroupsPerSecond is groups over the longest latency.
	GroupLatency    *LatencyStats
	GroupsPerSecond float64
}

func stats(sorted []int64, mean int64, entries []percentileEntry, query bool) LatencyStats {
	s := LatencyStats{Count: len(sorted), Mean: time.Duration(mean)}
	if len(sorted) > 0 {
		s.Min, s.Max = time.Duration(sorted[0]), time.Duration(sorted[len(sorted)-1])
	}
	for _, e := range entries {
		l := e.sampleLatency
		if query {
			l = e.queryLatency
		}
		s.Percentiles = append(s.Percentiles, Percentile{Fraction: e.fraction, Latency: time.Duration(l)})
	}
	return s
}

// result turns the summary into a PerformanceResult.
func (ps *perfSummary) result() *PerformanceResult {
	s, pr := ps.s, &ps.pr
	v := ps.verdict()
	r := &PerformanceResult{
		Valid:                   v.valid(),
		HasPerfConstraints:      ps.hasPerfConstraints(),
		PerfConstraintsMet:      v.perfConstraints,
		MinDurationMet:          v.minDuration,
		MinQueriesMet:           v.minQueries,
		EarlyStoppingMet:        v.earlyStopping,
		EarlyStopping:           v.earlyStoppingRec,
		EarlyStoppingTTFT:       v.ttftRec,
		EarlyStoppingTPOT:       v.tpotRec,
		EarlyStoppingLatency:    time.Duration(ps.earlyStoppingSS),
		EarlyStopping99:         time.Duration(ps.earlyStoppingMS),
		TargetQPS:               s.targetQPS,
		TargetLatency:           s.targetLatency,
		TargetLatencyPercentile: s.targetLatencyPercentile,
		TargetPercentileLatency: time.Duration(ps.target.sampleLatency),
		QueriesIssued:           pr.queriesIssued,
		SamplesCompleted:        ps.sampleCount,
		OverLatencyCount:        ps.overlatencyCount,
		RuntimeErrors:           ps.errors,
		Latency:                 stats(pr.sampleLatencies, ps.sampleMean, ps.percentiles[:], false),
		Tokens:                  ps.tokenCount,
		Duration:                time.Duration(pr.maxCompletion),
	}
	r.MetricName, r.Metric = ps.metric()
	if !v.perfConstraints {
		r.InvalidReasons = append(r.InvalidReasons, v.perfConstraintsRec)
	}
	if !v.minDuration {
		r.InvalidReasons = append(r.InvalidReasons, v.minDurationRec)
	}
	if !v.minQueries {
		r.InvalidReasons = append(r.InvalidReasons, "The test exited early, before enough queries were issued.")
	}
	if !v.earlyStopping {
		r.InvalidReasons = append(r.InvalidReasons, "Early stopping: "+strings.ReplaceAll(v.earlyStoppingRec+v.ttftRec+v.tpotRec, "\n", " "))
	}
	if v.sutErrors > 0 {
		r.InvalidReasons = append(r.InvalidReasons, sutErrorRecommendation)
	}
	switch s.scenario {
	case SingleStream:
		r.QPSWithLoadgenOverhead = float64(ps.sampleCount-1) / pr.finalQueryIssued
		r.QPSWithoutLoadgenOverhead = 1 / (float64(ps.sampleMean) / 1e9)
	case MultiStream:
		q := stats(pr.queryLatencies, ps.queryMean, ps.percentiles[:], true)
		r.QueryLatency = &q
		r.TargetPercentileLatency = time.Duration(ps.target.queryLatency)
		r.EarlyStoppingLatency, r.EarlyStopping99 = time.Duration(ps.earlyStoppingMS), 0
	case Server:
		r.CompletedSamplesPerSecond = float64(ps.sampleCount-1) / pr.finalQueryAllDone
		r.ScheduledSamplesPerSecond = float64(ps.sampleCount-1) / pr.finalQueryScheduled
		delays := slices.Clone(pr.issueDelays)
		slices.Sort(delays)
		var entries []percentileEntry
		for _, f := range percentileFractions {
			entries = append(entries, percentileEntry{fraction: f, sampleLatency: at(delays, uint64(len(delays)), f)})
		}
		var mean int64
		if len(delays) > 0 {
			mean = sum(delays) / int64(len(delays))
		}
		d := stats(delays, mean, entries, false)
		r.IssueDelay = &d
	case Offline:
		r.SamplesPerSecond = float64(ps.sampleCount) / pr.maxLatency
	}
	if s.useGroupedQSL && ps.groupCount > 0 {
		gl := slices.Clone(pr.groupLatencies)
		slices.Sort(gl)
		g := stats(gl, ps.groupMean, ps.groupPercentiles[:], true)
		r.GroupLatency = &g
		r.GroupsPerSecond = float64(ps.groupCount) / pr.maxLatency
	}
	if s.useTokenLatencies && len(pr.firstToken) > 0 {
		ft := stats(pr.firstToken, ps.firstTokenMean, ps.tokenPercentiles[:], false)
		tp := stats(pr.timePerToken, ps.tpotMean, ps.tpotPercentiles[:], false)
		r.FirstToken, r.TimePerOutputToken = &ft, &tp
		if s.scenario == Server {
			f := earlystop.NewFinder()
			r.FirstTokenBound = ps.tokenBound(f, pr.firstToken, ps.tokenTarget.sampleLatency, s.serverTTFTLatency)
			r.TimePerOutputTokenBound = ps.tokenBound(f, pr.timePerToken, ps.tpotTarget.sampleLatency, s.serverTPOTLatency)
		}
	}
	return r
}
