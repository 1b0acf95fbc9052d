package loadgen

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/loadgen/internal/earlystop"
)

// percentileFractions are the official reported percentiles.
var percentileFractions = [...]float64{.50, .90, .95, .97, .99, .999}

// percentileEntry is the official PercentileEntry.
type percentileEntry struct {
	fraction      float64
	sampleLatency int64
	queryLatency  int64
}

// perfSummary is the official PerformanceSummary: a phase's result read in
// the light of its settings. Its statistics follow the official code to
// the integer: means by integer division, percentiles at index
// floor(count * p) of the sorted latencies.
type perfSummary struct {
	sutName string
	s       *effective
	pr      perfResult
	errors  int // runtime errors of the SUT: not in the official rules

	sampleCount       uint64
	queryCount        uint64
	overlatencyCount  uint64
	sampleMin         int64
	sampleMax         int64
	sampleMean        int64
	queryMin          int64
	queryMax          int64
	queryMean         int64
	target            percentileEntry
	percentiles       [len(percentileFractions)]percentileEntry
	earlyStoppingSS   int64
	earlyStoppingMS   int64
	tokenCount        uint64
	firstTokenMin     int64
	firstTokenMax     int64
	firstTokenMean    int64
	tpotMin           int64
	tpotMax           int64
	tpotMean          int64
	tokenTarget       percentileEntry
	tokenPercentiles  [len(percentileFractions)]percentileEntry
	tpotTarget        percentileEntry
	tpotPercentiles   [len(percentileFractions)]percentileEntry
	overlatencyTokens uint64
	groupCount        uint64
	groupMin          int64
	groupMax          int64
	groupMean         int64
	groupPercentiles  [len(percentileFractions)]percentileEntry
}

func newPerfSummary(sutName string, s *effective, pr perfResult, errors int) *perfSummary {
	ps := &perfSummary{sutName: sutName, s: s, pr: pr, errors: errors}
	ps.target.fraction = s.targetLatencyPercentile
	ps.tokenTarget.fraction = s.targetLatencyPercentile
	ps.tpotTarget.fraction = s.targetLatencyPercentile
	for i, f := range percentileFractions {
		ps.percentiles[i].fraction = f
		ps.tokenPercentiles[i].fraction = f
		ps.tpotPercentiles[i].fraction = f
		ps.groupPercentiles[i].fraction = f
	}
	ps.processGroupLatencies()
	ps.processLatencies()
	return ps
}

// at is the official percentile pick: element floor(count * p), clamped
// to the slice.
func at(sorted []int64, count uint64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(int(float64(count)*p), len(sorted)-1)
	return sorted[max(i, 0)]
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

func (ps *perfSummary) processLatencies() {
	lat := ps.pr.sampleLatencies
	if len(lat) == 0 {
		return
	}
	ps.sampleCount = uint64(len(lat))
	ps.sampleMean = sum(lat) / int64(ps.sampleCount)
	slices.Sort(lat)
	ps.target.sampleLatency = at(lat, ps.sampleCount, ps.target.fraction)
	ps.sampleMin, ps.sampleMax = lat[0], lat[len(lat)-1]
	for i := range ps.percentiles {
		ps.percentiles[i].sampleLatency = at(lat, ps.sampleCount, ps.percentiles[i].fraction)
	}
	ps.queryCount = ps.pr.queriesIssued
	if ps.s.scenario == Server {
		// Latencies at or above target + 1 ns.
		i, _ := slices.BinarySearch(lat, int64(ps.s.targetLatency)+1)
		ps.overlatencyCount = uint64(len(lat) - i)
	}
	if ps.s.useTokenLatencies {
		ps.processTokenLatencies()
	}
	if ps.s.scenario != MultiStream || len(ps.pr.queryLatencies) == 0 {
		return
	}
	ql := ps.pr.queryLatencies
	slices.Sort(ql)
	qc := ps.pr.queriesIssued
	ps.queryMean = sum(ql) / int64(qc)
	ps.queryMin, ps.queryMax = ql[0], ql[len(ql)-1]
	ps.target.queryLatency = at(ql, qc, ps.target.fraction)
	for i := range ps.percentiles {
		ps.percentiles[i].queryLatency = at(ql, qc, ps.percentiles[i].fraction)
	}
}

func (ps *perfSummary) processGroupLatencies() {
	gl := ps.pr.groupLatencies
	if !ps.s.useGroupedQSL || len(gl) == 0 {
		return
	}
	ps.groupCount = uint64(len(gl))
	ps.groupMean = sum(gl) / int64(ps.groupCount)
	gl = slices.Clone(gl)
	slices.Sort(gl)
	ps.groupMin, ps.groupMax = gl[0], gl[len(gl)-1]
	for i := range ps.groupPercentiles {
		ps.groupPercentiles[i].queryLatency = at(gl, ps.groupCount, ps.groupPercentiles[i].fraction)
	}
}

func (ps *perfSummary) processTokenLatencies() {
	for _, n := range ps.pr.tokensPerSample {
		ps.tokenCount += uint64(n)
	}
	ft, tp := ps.pr.firstToken, ps.pr.timePerToken
	if len(ft) == 0 {
		return
	}
	n := ps.sampleCount
	ps.firstTokenMean = sum(ft) / int64(n)
	ps.tpotMean = sum(tp) / int64(n)
	slices.Sort(ft)
	slices.Sort(tp)
	ps.tokenTarget.sampleLatency = at(ft, n, ps.tokenTarget.fraction)
	ps.firstTokenMin, ps.firstTokenMax = ft[0], ft[len(ft)-1]
	for i := range ps.tokenPercentiles {
		ps.tokenPercentiles[i].sampleLatency = at(ft, n, ps.tokenPercentiles[i].fraction)
	}
	if len(tp) > 0 {
		ps.tpotTarget.sampleLatency = at(tp, n, ps.tpotTarget.fraction)
		ps.tpotMin, ps.tpotMax = tp[0], tp[len(tp)-1]
		for i := range ps.tpotPercentiles {
			ps.tpotPercentiles[i].sampleLatency = at(tp, n, ps.tpotPercentiles[i].fraction)
		}
	}
	if ps.s.scenario == Server {
		i, _ := slices.BinarySearch(ft, int64(ps.s.targetLatency)+1)
		ps.overlatencyTokens = uint64(len(ft) - i)
	}
}

func pct1(p float64) string { return fixed(p*100, 1) }

// earlyStopping is the official PerformanceSummary::EarlyStopping over
// sorted latencies (the sample latencies, or a token latency array).
func (ps *perfSummary) earlyStopping(latencies []int64, targetLatency int64) (bool, string) {
	f := earlystop.NewFinder()
	issued := int64(ps.pr.queriesIssued)
	p := ps.target.fraction
	switch ps.s.scenario {
	case SingleStream:
		hMin, t, ok := earlyStoppingDiscard(f, issued, p)
		if !ok {
			return false, " * Only processed " + itoa(issued) + " queries.\n * Need to process at least " +
				itoa(hMin+1) + " queries for early stopping."
		}
		est := nth(latencies, issued-t)
		rec := " * Processed at least " + itoa(hMin+1) + " queries (" + itoa(issued) + ").\n" +
			" * Would discard " + itoa(t-1) + " highest latency queries.\n" +
			" * Early stopping " + pct1(p) + "th percentile estimate: " + itoa(est)
		ps.earlyStoppingSS = est
		// The 99th percentile estimate infers MultiStream from SingleStream.
		const multiStreamPercentile = 0.99
		hMin, t, ok = earlyStoppingDiscard(f, issued, multiStreamPercentile)
		if !ok {
			rec += "\n * Not enough queries processed for " + pct1(multiStreamPercentile) + "th percentile\n" +
				" early stopping estimate (would need to process at\n least " + itoa(hMin+1) + " total queries)."
		} else {
			est = nth(latencies, issued-t)
			rec += "\n * Early stopping " + pct1(multiStreamPercentile) + "th percentile estimate: " + itoa(est)
			ps.earlyStoppingMS = est
		}
		return true, rec
	case Server:
		var t int64
		for _, l := range latencies {
			if l > targetLatency {
				t++
			}
		}
		h := f.MinPassing(t, p, earlyStoppingTolerance, earlyStoppingConfidence)
		if issued >= h+t {
			return true, " * Run successful."
		}
		return false, " * Run unsuccessful.\n * Processed " + itoa(issued) + " queries.\n" +
			" * Would need to run at least " + itoa(h+t-issued) + " more queries,\n with the run being successful if every additional\n query were under latency."
	case MultiStream:
		hMin, t, ok := earlyStoppingDiscard(f, issued, p)
		if !ok {
			return false, " * Only processed " + itoa(issued) + " queries.\n * Need to process at least " +
				itoa(hMin+1) + " queries for early stopping."
		}
		est := nth(ps.pr.queryLatencies, issued-t)
		ps.earlyStoppingMS = est
		return true, " * Processed at least " + itoa(hMin+1) + " queries (" + itoa(issued) + ").\n" +
			" * Would discard " + itoa(t-1) + " highest latency queries.\n" +
			" * Early stopping " + pct1(p) + "th percentile estimate: " + itoa(est)
	}
	return true, ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func (ps *perfSummary) minDurationMet() (bool, string) {
	minDuration := secondsOfMillis(ps.s.minDuration)
	var met bool
	switch ps.s.scenario {
	case Offline:
		met = ps.pr.maxLatency >= minDuration
	case Server:
		met = ps.pr.finalQueryScheduled >= minDuration
	default:
		met = ps.pr.finalQueryIssued >= minDuration
	}
	if met {
		return true, ""
	}
	switch ps.s.scenario {
	case Server:
		return false, "Increase the target QPS so the loadgen pre-generates more queries."
	case Offline:
		return false, "Increase expected QPS so the loadgen pre-generates a larger (coalesced) query."
	}
	return false, "Decrease the expected latency so the loadgen pre-generates more queries."
}

func (ps *perfSummary) minQueriesMet() bool {
	return ps.pr.queriesIssued >= ps.s.minQueryCount && ps.sampleCount >= ps.s.minSampleCount
}

func (ps *perfSummary) hasPerfConstraints() bool { return ps.s.scenario == Server }

func (ps *perfSummary) perfConstraintsMet() (bool, string) {
	if ps.s.scenario != Server {
		return true, ""
	}
	if !ps.s.useTokenLatencies {
		if ps.target.sampleLatency > int64(ps.s.targetLatency) {
			return false, "Reduce target QPS to improve latency."
		}
		return true, ""
	}
	met, rec := true, ""
	if ps.tokenTarget.sampleLatency > ps.s.serverTTFTLatency {
		rec = "TTFT constrain not met: Reduce target QPS to improve latency."
		met = false
	}
	if ps.tpotTarget.sampleLatency > ps.s.serverTPOTLatency {
		if rec == "" {
			rec = "TPOT constrain not met: Reduce target QPS to improve latency."
		} else {
			rec += "\n * TPOT constrain not met: Reduce target QPS to improve latency."
		}
		met = false
	}
	return met, rec
}

// verdict gathers every validity check, in the order the official summary
// evaluates them.
type verdict struct {
	minDuration, minQueries, earlyStopping, perfConstraints bool
	minDurationRec, perfConstraintsRec                      string
	earlyStoppingRec, ttftRec, tpotRec                      string
	// sutErrors are the runtime errors the SUT caused (invalid responses,
	// unfinished samples, a failed IssueQuery or a canceled run). The
	// official rules ignore them; here they invalidate the run.
	sutErrors int
}

func (v verdict) valid() bool {
	return v.minDuration && v.minQueries && v.perfConstraints && v.earlyStopping && v.sutErrors == 0
}

func (ps *perfSummary) verdict() verdict {
	var v verdict
	v.minDuration, v.minDurationRec = ps.minDurationMet()
	v.minQueries = ps.minQueriesMet()
	if !ps.s.useTokenLatencies {
		v.earlyStopping, v.earlyStoppingRec = ps.earlyStopping(ps.pr.sampleLatencies, int64(ps.s.targetLatency))
	} else {
		// As the official, TTFT is not estimated when TPOT fails.
		v.earlyStopping, v.tpotRec = ps.earlyStopping(ps.pr.timePerToken, ps.s.serverTPOTLatency)
		if v.earlyStopping {
			v.earlyStopping, v.ttftRec = ps.earlyStopping(ps.pr.firstToken, ps.s.serverTTFTLatency)
		}
	}
	v.perfConstraints, v.perfConstraintsRec = ps.perfConstraintsMet()
	v.sutErrors = ps.errors
	return v
}

const sutErrorRecommendation = "The SUT caused runtime errors (invalid or missing responses); see the detailed log."

// noneCompletedRecommendation is said when the run completed no sample:
// its rates are then 0 and its latency statistics empty, not a division
// by zero (the official divides, and prints nan or, where it subtracts one
// from the count first, a huge number). allFailedRecommendation is said
// when every sample it completed failed (a plugin that died fails the
// samples in flight): no rate either, though the failures have latencies.
const (
	noneCompletedRecommendation = "No sample completed, so the run has no rate and no latencies to report: the rates read 0 and the latency statistics 0."
	allFailedRecommendation     = "No sample completed successfully (every one failed), so the run has no rate: the rates read 0, and the latencies are the failures'."
)

// noneSucceeded reports whether the run completed no sample without an
// error.
func (ps *perfSummary) noneSucceeded() bool {
	return uint64(ps.pr.failed) >= ps.sampleCount
}

// noneSucceededRecommendation is what the summary says of a run that
// completed no sample successfully; "" for any other run.
func (ps *perfSummary) noneSucceededRecommendation() string {
	switch {
	case ps.sampleCount == 0:
		return noneCompletedRecommendation
	case ps.noneSucceeded():
		return allFailedRecommendation
	}
	return ""
}

// rate is n per seconds, and 0 when the run completed no sample
// successfully.
func (ps *perfSummary) rate(n, seconds float64) float64 {
	if ps.noneSucceeded() {
		return 0
	}
	return n / seconds
}

// afterFirst is the count of completed samples less the first, as the
// official rates as completed count them; 0 when none completed.
func (ps *perfSummary) afterFirst() float64 {
	if ps.sampleCount == 0 {
		return 0
	}
	return float64(ps.sampleCount - 1)
}

// metric returns the scenario's headline label and value.
func (ps *perfSummary) metric() (string, float64) {
	switch ps.s.scenario {
	case SingleStream:
		return pct1(ps.target.fraction) + "th percentile latency (ns)", float64(ps.target.sampleLatency)
	case MultiStream:
		return pct1(ps.target.fraction) + "th percentile latency (ns)", float64(ps.target.queryLatency)
	case Server:
		return "Completed samples per second", ps.rate(ps.afterFirst(), ps.pr.finalQueryAllDone)
	}
	return "Samples per second", ps.rate(float64(ps.sampleCount), ps.pr.maxLatency)
}

// statLabels are the official labels of a block of latency statistics:
// min, max, mean, and what follows each percentile.
type statLabels struct{ min, max, mean, percentile string }

var (
	latencyLabels = statLabels{
		"Min latency (ns)                : ", "Max latency (ns)                : ",
		"Mean latency (ns)               : ", " percentile latency (ns)   : "}
	firstTokenLabels = statLabels{
		"Min First Token latency (ns)                : ", "Max First Token latency (ns)                : ",
		"Mean First Token latency (ns)               : ", " percentile first token latency (ns)   : "}
	tpotLabels = statLabels{
		"Min Time to Output Token (ns)                : ", "Max Time to Output Token (ns)                : ",
		"Mean Time to Output Token (ns)               : ", " percentile time to output token (ns)   : "}
	groupLabels = statLabels{
		"Min group latency (ns)          : ", "Max group latency (ns)          : ",
		"Mean group latency (ns)         : ", " group percentile latency (ns)   : "}
)

// writeStats writes one block of latency statistics to the summary.
func writeStats(l *logs, labels statLabels, minV, maxV, mean int64, entries []percentileEntry, query bool) {
	l.summaryLine(labels.min, vInt(minV))
	l.summaryLine(labels.max, vInt(maxV))
	l.summaryLine(labels.mean, vInt(mean))
	for _, lp := range entries {
		v := lp.sampleLatency
		if query {
			v = lp.queryLatency
		}
		l.summaryLine(fixed(lp.fraction*100, 2)+labels.percentile, vInt(v))
	}
}

// writeSummary writes the official mlperf_log_summary.txt body.
func (ps *perfSummary) writeSummary(l *logs) {
	s, pr := ps.s, &ps.pr
	l.summaryLine("================================================\nMLPerf Results Summary\n================================================")
	l.summaryLine("SUT name : ", vString(ps.sutName))
	l.summaryLine("Scenario : ", vString(s.scenario.String()))
	l.summaryLine("Mode     : ", vString(s.mode.String()))
	switch s.scenario {
	case SingleStream:
		l.summaryLine(pct1(ps.target.fraction)+"th percentile latency (ns) : ", vInt(ps.target.sampleLatency))
	case MultiStream:
		l.summaryLine(pct1(ps.target.fraction)+"th percentile latency (ns) : ", vInt(ps.target.queryLatency))
	case Server:
		l.summaryLine("Completed samples per second    : ", vString(fixed(ps.rate(ps.afterFirst(), pr.finalQueryAllDone), 2)))
	case Offline:
		l.summaryLine("Samples per second: ", vDouble(ps.rate(float64(ps.sampleCount), pr.maxLatency)))
	}
	if s.useTokenLatencies {
		switch s.scenario {
		case SingleStream, MultiStream:
			l.summaryLine(pct1(ps.tokenTarget.fraction)+"th first token percentile latency (ns) : ", vInt(ps.tokenTarget.sampleLatency))
		case Offline:
			l.summaryLine("Tokens per second: ", vDouble(ps.rate(float64(ps.tokenCount), pr.maxLatency)))
		case Server:
			l.summaryLine("Completed tokens per second: ", vString(fixed(ps.rate(float64(ps.tokenCount), pr.finalQueryAllDone), 2)))
		}
	}
	if s.inferTokenLatencies {
		switch s.scenario {
		case Offline:
			l.summaryLine("Tokens per second (inferred): ", vDouble(ps.rate(float64(s.tokenLatencyScalingFactor)*float64(ps.sampleCount), pr.maxLatency)))
		case Server:
			l.summaryLine("Completed tokens per second (inferred): ", vString(fixed(
				ps.rate(float64(s.tokenLatencyScalingFactor)*ps.afterFirst(), pr.finalQueryAllDone), 2)))
		}
	}
	if s.useGroupedQSL {
		l.summaryLine("Groups per second: ", vDouble(ps.rate(float64(ps.groupCount), pr.maxLatency)))
		// The official labels the completed group rate so.
		l.summaryLine("Completed tokens per second: ", vString(fixed(ps.rate(float64(ps.groupCount), pr.finalQueryAllDone), 2)))
	}

	v := ps.verdict()
	yes := func(b bool) value {
		if b {
			return vString("Yes")
		}
		return vString("NO")
	}
	if v.valid() {
		l.summaryLine("Result is : ", vString("VALID"))
	} else {
		l.summaryLine("Result is : ", vString("INVALID"))
	}
	if ps.hasPerfConstraints() {
		l.summaryLine("  Performance constraints satisfied : ", yes(v.perfConstraints))
	}
	l.summaryLine("  Min duration satisfied : ", yes(v.minDuration))
	l.summaryLine("  Min queries satisfied : ", yes(v.minQueries))
	l.summaryLine("  Early stopping satisfied: ", yes(v.earlyStopping))
	if !v.valid() {
		l.summaryLine("Recommendations:")
		if !v.perfConstraints {
			l.summaryLine(" * " + v.perfConstraintsRec)
		}
		if !v.minDuration {
			l.summaryLine(" * " + v.minDurationRec)
		}
		if !v.minQueries {
			l.summaryLine(" * The test exited early, before enough queries were issued.\n   See the detailed log for why this may have occurred.")
		}
		if v.sutErrors > 0 {
			l.summaryLine(" * " + sutErrorRecommendation)
		}
		if rec := ps.noneSucceededRecommendation(); rec != "" {
			l.summaryLine(" * " + rec)
		}
	}
	if s.scenario != Offline {
		if !s.useTokenLatencies {
			l.summaryLine("Early Stopping Result:")
			l.summaryLine(v.earlyStoppingRec)
		} else {
			l.summaryLine("TTFT Early Stopping Result:")
			l.summaryLine(v.ttftRec)
			l.summaryLine("TPOT Early Stopping Result:")
			l.summaryLine(v.tpotRec)
		}
	}

	l.summaryLine("\n================================================\nAdditional Stats\n================================================")
	switch s.scenario {
	case SingleStream:
		l.summaryLine("QPS w/ loadgen overhead         : " + fixed(ps.rate(ps.afterFirst(), pr.finalQueryIssued), 2))
		l.summaryLine("QPS w/o loadgen overhead        : " + fixed(ps.rate(1, float64(ps.sampleMean)/1e9), 2))
		l.summaryLine("")
	case Server:
		l.summaryLine("Scheduled samples per second : ", vString(fixed(ps.rate(ps.afterFirst(), pr.finalQueryScheduled), 2)))
	case MultiStream:
		l.summaryLine("Per-query latency:  ")
		writeStats(l, latencyLabels, ps.queryMin, ps.queryMax, ps.queryMean, ps.percentiles[:], true)
	}
	if s.scenario != MultiStream {
		writeStats(l, latencyLabels, ps.sampleMin, ps.sampleMax, ps.sampleMean, ps.percentiles[:], false)
	}
	if s.useTokenLatencies {
		l.summaryLine("")
		switch s.scenario {
		case SingleStream:
			l.summaryLine("TPS w/ loadgen overhead         : " + fixed(ps.rate(float64(ps.tokenCount), pr.finalQueryIssued), 2))
			l.summaryLine("TPS w/o loadgen overhead        : " + fixed(ps.rate(float64(ps.tokenCount), float64(ps.sampleMean)/1e9*float64(ps.sampleCount)), 2))
		case Server:
			l.summaryLine("Completed tokens per second                 : ", vString(fixed(ps.rate(float64(ps.tokenCount), pr.finalQueryAllDone), 2)))
		}
		if s.scenario != Offline {
			writeStats(l, firstTokenLabels, ps.firstTokenMin, ps.firstTokenMax, ps.firstTokenMean, ps.tokenPercentiles[:], false)
			l.summaryLine("")
			writeStats(l, tpotLabels, ps.tpotMin, ps.tpotMax, ps.tpotMean, ps.tpotPercentiles[:], false)
		}
	}
	if s.useGroupedQSL {
		writeStats(l, groupLabels, ps.groupMin, ps.groupMax, ps.groupMean, ps.groupPercentiles[:], true)
	}
	l.summaryLine("\n================================================\nTest Parameters Used\n================================================")
	s.writeSummary(l)
}

// writeSummary is the official TestSettingsInternal::LogSummary.
func (s *effective) writeSummary(l *logs) {
	l.summaryLine("samples_per_query : ", vUint(s.samplesPerQuery))
	l.summaryLine("target_qps : ", vDouble(s.targetQPS))
	if !s.useTokenLatencies {
		l.summaryLine("target_latency (ns): ", vInt(int64(s.targetLatency)))
	} else {
		l.summaryLine("ttft_latency (ns): ", vInt(s.serverTTFTLatency))
		l.summaryLine("tpot_latency (ns): ", vInt(s.serverTPOTLatency))
	}
	l.summaryLine("max_async_queries : ", vUint(s.maxAsyncQueries))
	l.summaryLine("min_duration (ms): ", vInt(s.minDuration.Milliseconds()))
	l.summaryLine("max_duration (ms): ", vInt(s.maxDuration.Milliseconds()))
	l.summaryLine("min_query_count : ", vUint(s.minQueryCount))
	l.summaryLine("max_query_count : ", vUint(s.maxQueryCount))
	l.summaryLine("qsl_rng_seed : ", vUint(s.qslRNGSeed))
	l.summaryLine("sample_index_rng_seed : ", vUint(s.sampleIndexRNGSeed))
	l.summaryLine("schedule_rng_seed : ", vUint(s.scheduleRNGSeed))
	l.summaryLine("accuracy_log_rng_seed : ", vUint(s.accuracyLogRNGSeed))
	l.summaryLine("accuracy_log_probability : ", vDouble(s.accuracyLogProbability))
	l.summaryLine("accuracy_log_sampling_target : ", vUint(s.accuracyLogSamplingTarget))
	l.summaryLine("print_timestamps : ", vBool(s.printTimestamps))
	l.summaryLine("performance_issue_unique : ", vBool(s.performanceIssueUnique))
	l.summaryLine("performance_issue_same : ", vBool(s.performanceIssueSame))
	l.summaryLine("performance_issue_same_index : ", vUint(s.performanceIssueSameIndex))
	l.summaryLine("performance_sample_count : ", vUint(s.performanceSampleCount))
	l.summaryLine("accuracy_sample_count : ", vUint(s.accuracySampleCount))
	if s.sampleConcatenatePermutation {
		l.summaryLine("WARNING: sample_concatenate_permutation was set to true. \n" +
			"Generated samples per query might be different as the one in the setting.\n" +
			"Check the generated_samples_per_query line in the detailed log for the real\n" +
			"samples_per_query value")
	}
}

// writeDetail writes the official PerformanceSummary::LogDetail keys.
func (ps *perfSummary) writeDetail(l *logs) {
	const file = "loadgen/summary.go"
	s, pr := ps.s, &ps.pr
	d := func(key string, v value) { l.detail(key, v, levelInfo, file) }
	v := ps.verdict()
	if v.valid() {
		d("result_validity", vString("VALID"))
	} else {
		d("result_validity", vString("INVALID"))
	}
	if ps.hasPerfConstraints() {
		d("result_perf_constraints_met", vBool(v.perfConstraints))
	}
	d("result_min_duration_met", vBool(v.minDuration))
	d("result_min_queries_met", vBool(v.minQueries))
	d("early_stopping_met", vBool(v.earlyStopping))
	if !v.valid() {
		var rec string
		if !v.perfConstraints {
			rec += v.perfConstraintsRec + " "
		}
		if !v.minDuration {
			rec += v.minDurationRec + " "
		}
		if !v.minQueries {
			rec += "The test exited early, before enough queries were issued."
		}
		add := func(r string) {
			if rec != "" && !strings.HasSuffix(rec, " ") {
				rec += " "
			}
			rec += r
		}
		if v.sutErrors > 0 {
			add(sutErrorRecommendation)
		}
		if rec := ps.noneSucceededRecommendation(); rec != "" {
			add(rec)
		}
		d("result_invalid_reason", vString(strings.ReplaceAll(rec, "\n", " ")))
	}
	if !s.useTokenLatencies {
		d("early_stopping_result", vString(strings.ReplaceAll(v.earlyStoppingRec, "\n", " ")))
	} else {
		d("early_stopping_ttft_result", vString(strings.ReplaceAll(v.ttftRec, "\n", " ")))
		d("early_stopping_tpot_result", vString(strings.ReplaceAll(v.tpotRec, "\n", " ")))
	}
	d("result_query_count", vUint(ps.queryCount))
	if s.scenario == Server {
		d("result_overlatency_query_count", vUint(ps.overlatencyCount))
	}
	switch s.scenario {
	case SingleStream:
		d("result_qps_with_loadgen_overhead", vDouble(ps.rate(ps.afterFirst(), pr.finalQueryIssued)))
		d("result_qps_without_loadgen_overhead", vDouble(ps.rate(1, float64(ps.sampleMean)/1e9)))
		d("early_stopping_latency_ss", vInt(ps.earlyStoppingSS))
		d("early_stopping_latency_ms", vInt(ps.earlyStoppingMS))
	case MultiStream:
		d("result_min_query_latency_ns", vInt(ps.queryMin))
		d("result_max_query_latency_ns", vInt(ps.queryMax))
		d("result_mean_query_latency_ns", vInt(ps.queryMean))
		for _, lp := range ps.percentiles {
			d("result_"+fixed(lp.fraction*100, 2)+"_percentile_per_query_latency_ns", vInt(lp.queryLatency))
		}
		d("early_stopping_latency_ms", vInt(ps.earlyStoppingMS))
	case Server:
		d("result_scheduled_samples_per_sec", vDouble(ps.rate(ps.afterFirst(), pr.finalQueryScheduled)))
		d("result_completed_samples_per_sec", vDouble(ps.rate(ps.afterFirst(), pr.finalQueryAllDone)))
	case Offline:
		d("result_samples_per_second", vDouble(ps.rate(float64(ps.sampleCount), pr.maxLatency)))
	}
	d("result_min_latency_ns", vInt(ps.sampleMin))
	d("result_max_latency_ns", vInt(ps.sampleMax))
	d("result_mean_latency_ns", vInt(ps.sampleMean))
	for _, lp := range ps.percentiles {
		d("result_"+fixed(lp.fraction*100, 2)+"_percentile_latency_ns", vInt(lp.sampleLatency))
	}
	if s.useTokenLatencies {
		if s.scenario != Offline {
			d("result_first_token_min_latency_ns", vInt(ps.firstTokenMin))
			d("result_first_token_max_latency_ns", vInt(ps.firstTokenMax))
			d("result_first_token_mean_latency_ns", vInt(ps.firstTokenMean))
			for _, lp := range ps.tokenPercentiles {
				d("result_first_token_"+fixed(lp.fraction*100, 2)+"_percentile_latency_ns", vInt(lp.sampleLatency))
			}
			d("result_token_throughput_with_loadgen_overhead", vDouble(ps.rate(float64(ps.tokenCount), pr.finalQueryIssued)))
			// The official divides by the mean latency in nanoseconds here.
			d("result_token_throughput", vDouble(ps.rate(float64(ps.tokenCount), float64(ps.sampleMean)*float64(ps.sampleCount))))
			for _, lp := range ps.tpotPercentiles {
				d("result_time_per_output_token_"+fixed(lp.fraction*100, 2)+"_percentile_ns", vInt(lp.sampleLatency))
			}
			d("result_time_to_output_token_min", vInt(ps.tpotMin))
			d("result_time_to_output_token_max", vInt(ps.tpotMax))
			d("result_time_to_output_token_mean", vInt(ps.tpotMean))
			d("result_completed_tokens_per_second", vDouble(ps.rate(float64(ps.tokenCount), pr.finalQueryAllDone)))
		} else {
			d("result_tokens_per_second", vDouble(ps.rate(float64(ps.tokenCount), pr.maxLatency)))
		}
	}
	if s.inferTokenLatencies {
		switch s.scenario {
		case Server:
			d("result_inferred_completed_tokens_per_second", vDouble(ps.rate(ps.afterFirst()*float64(s.tokenLatencyScalingFactor), pr.finalQueryAllDone)))
		case Offline:
			d("result_inferred_tokens_per_second", vDouble(ps.rate(float64(ps.sampleCount)*float64(s.tokenLatencyScalingFactor), pr.maxLatency)))
		}
	}
	if s.useGroupedQSL {
		d("result_group_min_latency_ns", vInt(ps.groupMin))
		d("result_group_max_latency_ns", vInt(ps.groupMax))
		d("result_group_mean_latency_ns", vInt(ps.groupMean))
		for _, lp := range ps.groupPercentiles {
			d("result_group_"+fixed(lp.fraction*100, 2)+"_percentile_latency_ns", vInt(lp.queryLatency))
		}
	}
	errs, _ := l.counts()
	d("num_errors", vInt(int64(len(errs))))
}
