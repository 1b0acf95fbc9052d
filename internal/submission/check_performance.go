package submission

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// inferable are the pairs (the run's scenario, the directory's) whose
// result the rules let an edge system infer: a SingleStream run standing
// for MultiStream and Offline, a MultiStream run for Offline.
var inferable = [][2]string{{"singlestream", "multistream"}, {"multistream", "offline"}, {"singlestream", "offline"}}

// performance checks one performance run's detail log in dir as the
// checker's PerformanceCheck does, for the scenario's run or, test naming
// it, a TEST01 or TEST04 run; and mlperf-host's own rules: the run VALID,
// free of LoadGen errors, with its summary. res, for the scenario's run,
// gets the result metric. It returns the log, nil when there is none.
func (c *checker) performance(l Layout, dir string, sysDesc map[string]any, test benchmarks.Test, res *Result) *detailLog {
	what := "performance run"
	if test != "" {
		what = string(test) + " run"
	}
	if !c.exists(filepath.Join(dir, DetailFile), what+" detail log (PerformanceCheck.missing_check; the checker stops on this tree)") {
		return nil
	}
	d, err := readDetail(dir)
	if err != nil {
		c.add(dir, "%v (the checker stops on this tree)", err)
		return nil
	}
	if st, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil || st.Size() == 0 {
		c.strict(filepath.Join(dir, SummaryFile), "missing %s summary log (mlperf-host's rule; the checker reads only the detail log)", what)
	}
	p := perfProblems(d, c.round, l, sysDesc)
	for _, msg := range p.errors {
		c.add(d.path, "%s: %s", what, msg)
	}
	for _, msg := range p.strict {
		c.strict(d.path, "%s: %s", what, msg)
	}
	if res != nil && p.hasMetric {
		res.Metric, res.Unit, res.HasMetric, res.Inferred = p.metric, p.unit, true, p.inferred
	}
	return d
}

// perfResult is what the performance checks find in one detail log.
type perfResult struct {
	errors, strict []string
	metric         float64
	unit           string
	hasMetric      bool
	inferred       bool
}

// perfProblems are the performance checks of one detail log, in the
// checker's order.
func perfProblems(d *detailLog, r *benchmarks.Round, l Layout, sysDesc map[string]any) perfResult {
	var p perfResult
	add := func(format string, args ...any) { p.errors = append(p.errors, fmt.Sprintf(format, args...)) }
	strict := func(format string, args ...any) { p.strict = append(p.strict, fmt.Sprintf(format, args...)) }
	b := l.Benchmark
	logSc := d.str("effective_scenario")
	fixed := l.ScenarioName
	if fixed == "" {
		fixed = string(l.Scenario)
	}
	run := benchmarks.Scenario(logSc)
	for _, e := range d.errors() {
		strict("LoadGen error %s (mlperf-host's rule; the checker's loadgen_errors_check lets a performance log's errors through)", e)
	}
	if v := d.str("result_validity"); v != "VALID" {
		strict("result_validity is %q: %s (mlperf-host's rule; the checker does not read it)", v, d.str("result_invalid_reason"))
	}
	if n, ok := d.number("effective_performance_sample_count"); !ok || n < float64(b.PerformanceSampleCount) {
		add("effective_performance_sample_count %s is below %d (performance_sample_count_check)", d.str("effective_performance_sample_count"), b.PerformanceSampleCount)
	}
	for _, s := range []struct{ key, want string }{
		{"effective_qsl_rng_seed", r.Seeds.QSL}, {"effective_sample_index_rng_seed", r.Seeds.SampleIndex},
		{"effective_schedule_rng_seed", r.Seeds.Schedule},
	} {
		if got := d.raw(s.key); got != s.want {
			add("%s is %s: round %s's seed is %s (seeds_check)", s.key, got, r.Name, s.want)
		}
	}
	early := slices.Contains(r.EarlyStopping, run)
	if early {
		if !d.truthy("early_stopping_met") {
			add("early stopping condition not met: %s (latency_check)", d.str("early_stopping_result"))
		} else if bound := b.LatencyConstraint[run]; bound > 0 {
			if n, ok := d.number("effective_target_latency_ns"); !ok || n > float64(bound.Nanoseconds()) {
				add("effective_target_latency_ns %s is over the bound %d (latency_check)", d.str("effective_target_latency_ns"), bound.Nanoseconds())
			}
		}
		// An Interactive directory's Server run: the checker holds it to
		// Server's bound, the round's rules to Interactive's (qwen3-vl).
		if bound := b.LatencyConstraint[benchmarks.Interactive]; bound > 0 && strings.EqualFold(fixed, "interactive") {
			if n, ok := d.number("effective_target_latency_ns"); ok && n > float64(bound.Nanoseconds()) {
				strict("effective_target_latency_ns %s is over Interactive's bound %d (mlperf-host's rule; the checker's latency_check holds the run to its log's scenario, %s)",
					d.str("effective_target_latency_ns"), bound.Nanoseconds(), orNone(logSc))
			}
		}
	} else {
		sc, _ := scenarioOf(fixed)
		if bound := b.LatencyConstraint[sc]; bound > 0 {
			if n, ok := d.number("result_99.00_percentile_latency_ns"); !ok || n > float64(bound.Nanoseconds()) {
				add("result_99.00_percentile_latency_ns %s is over the bound %d (latency_check)", d.str("result_99.00_percentile_latency_ns"), bound.Nanoseconds())
			}
		}
		if want, ok := b.MinQueries[run]; !ok && b.MinQueries == nil {
			add("no minimum query count for %s (min_query_count_check)", b.SubmissionName)
		} else if want > 0 {
			if n, ok := d.number("effective_min_query_count"); !ok || n < float64(want) {
				add("effective_min_query_count %s is below %d (min_query_count_check)", d.str("effective_min_query_count"), want)
			}
		}
	}
	if strings.EqualFold(logSc, "offline") {
		n, ok := d.number("effective_samples_per_query")
		switch {
		case b.OfflineMinSamplesPerQuery == 0:
			add("no minimum samples per query for %s (min_query_count_check)", b.SubmissionName)
		case !ok:
			add("no effective_samples_per_query (min_query_count_check)")
		case l.Division == "closed" && n < float64(b.OfflineMinSamplesPerQuery):
			add("effective_samples_per_query %s is below %d (min_query_count_check)", d.str("effective_samples_per_query"), b.OfflineMinSamplesPerQuery)
		}
	}
	if !strings.HasPrefix(b.SubmissionName, "e2e-rag-") {
		// The demo's own minimum stands for the round's (Benchmark.MinDuration).
		want := r.MinDurationOf(b).Milliseconds()
		if n, ok := d.number("effective_min_duration_ms"); !ok || n < float64(want) {
			add("effective_min_duration_ms %s is below %d (min_duration_check)", d.str("effective_min_duration_ms"), want)
		}
	}
	if sysDesc != nil {
		if network, err := isNetwork(sysDesc); err == nil && network && !strings.Contains(d.str("sut_name"), "Network SUT") {
			add("sut_name %q of a network system lacks \"Network SUT\" (network_check)", d.str("sut_name"))
		}
	}
	if b.LLM {
		llmCheck(d, b, run, fixed, add, strict)
	}
	interactive := strings.EqualFold(logSc, "server") && strings.EqualFold(fixed, "interactive") // an Interactive directory holds a Server run
	if !strings.EqualFold(logSc, fixed) && !interactive {
		st, ok := sysDesc["system_type"].(string)
		pair := [2]string{strings.ToLower(logSc), strings.ToLower(fixed)}
		switch {
		case !ok || !strings.Contains(strings.ToLower(st), "edge"):
			add("its effective_scenario %s stands for %s: results are inferred only for edge systems, not %s (inferred_check)", orNone(logSc), fixed, pyRepr(sysDesc["system_type"]))
		case !slices.Contains(inferable, pair):
			add("its effective_scenario %s cannot stand for %s (inferred_check)", orNone(logSc), fixed)
		default:
			p.inferred = true
		}
	}
	metricOf(d, r, b, logSc, fixed, &p, add)
	return p
}

func orNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

// llmCheck is the checker's llm_check: token latencies logged, and in a
// Server run (an Interactive directory's too: its log says Server) TTFT
// and TPOT p99 under the limits of the log's scenario. mlperf-host holds
// an Interactive directory's run to Interactive's own limits as well.
func llmCheck(d *detailLog, b benchmarks.Benchmark, run benchmarks.Scenario, fixed string, add, strict func(string, ...any)) {
	if !d.truthy("requested_use_token_latencies") {
		add("use_token_latencies must be on for an LLM benchmark (llm_check)")
		return
	}
	if run != benchmarks.Server && run != benchmarks.Interactive {
		return
	}
	ttft, ok1 := d.number("result_first_token_99.00_percentile_latency_ns")
	tpot, ok2 := d.number("result_time_per_output_token_99.00_percentile_ns")
	lim, ok := b.TokenLatency[run]
	switch {
	case !ok:
		add("no TTFT/TPOT limits for %s %s (llm_check)", b.SubmissionName, run)
	case !ok1 || !ok2:
		add("no TTFT or TPOT 99th percentile (llm_check)")
	case ttft >= float64(lim.TTFT.Nanoseconds()) || tpot >= float64(lim.TPOT.Nanoseconds()):
		add("TTFT p99 %s / TPOT p99 %s ns must be under %s's %d / %d ns (llm_check)", d.str("result_first_token_99.00_percentile_latency_ns"),
			d.str("result_time_per_output_token_99.00_percentile_ns"), run, lim.TTFT.Nanoseconds(), lim.TPOT.Nanoseconds())
	}
	if il, ok := b.TokenLatency[benchmarks.Interactive]; ok && strings.EqualFold(fixed, "interactive") && ok1 && ok2 &&
		(ttft >= float64(il.TTFT.Nanoseconds()) || tpot >= float64(il.TPOT.Nanoseconds())) {
		strict("TTFT p99 %s / TPOT p99 %s ns are not under Interactive's %d / %d ns (mlperf-host's rule; the checker's llm_check holds the run to its log's scenario, %s)",
			d.str("result_first_token_99.00_percentile_latency_ns"), d.str("result_time_per_output_token_99.00_percentile_ns"),
			il.TTFT.Nanoseconds(), il.TPOT.Nanoseconds(), run)
	}
}

// metricOf is the checker's get_performance_metric_check: the result as
// [benchmarks.Round.ResultOf] computes it.
func metricOf(d *detailLog, r *benchmarks.Round, b benchmarks.Benchmark, logSc, fixed string, p *perfResult, add func(string, ...any)) {
	dir, _ := scenarioOf(fixed)
	m, err := r.ResultOf(b, benchmarks.Scenario(logSc), dir, d.number)
	if err != nil {
		add("%v (get_performance_metric_check)", err)
		return
	}
	p.metric, p.unit, p.hasMetric = m.Value, m.Unit, true
}
