package submission

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// performance checks one performance run's detail log in dir as the
// checker's PerformanceCheck does (for the scenario's run, and for the
// TEST01 and TEST04 runs: test names the one), and that the run is VALID
// and free of LoadGen errors.
func (c *checker) performance(l Layout, dir string, sysDesc map[string]any, test benchmarks.Test) {
	what := "performance run"
	if test != "" {
		what = string(test) + " run"
	}
	if !c.exists(filepath.Join(dir, DetailFile), what+" detail log (PerformanceCheck.missing_check)") {
		return
	}
	c.exists(filepath.Join(dir, SummaryFile), what+" summary log")
	d, err := readDetail(dir)
	if err != nil {
		c.add(dir, "%v", err)
		return
	}
	for _, p := range perfProblems(d, c.round, l, sysDesc) {
		c.add(d.path, "%s: %s", what, p)
	}
}

// perfProblems are the performance checks of one detail log.
func perfProblems(d *detailLog, r *benchmarks.Round, l Layout, sysDesc map[string]any) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	b, sc := l.Benchmark, l.Scenario
	if got := d.str("effective_scenario"); got != string(sc) {
		add("effective_scenario is %q, the directory says %s (inferred results are not mlperf-host's)", got, sc)
	}
	if v := d.str("result_validity"); v != "VALID" {
		add("result_validity is %q: %s", v, d.str("result_invalid_reason"))
	}
	for _, e := range d.errors() {
		add("LoadGen error %s (loadgen_errors_check)", e)
	}
	if n, ok := d.num("effective_performance_sample_count"); !ok || n < float64(b.PerformanceSampleCount) {
		add("effective_performance_sample_count %s is below %d (performance_sample_count_check)", d.str("effective_performance_sample_count"), b.PerformanceSampleCount)
	}
	for _, s := range []struct{ key, want string }{
		{"effective_qsl_rng_seed", r.Seeds.QSL}, {"effective_sample_index_rng_seed", r.Seeds.SampleIndex},
		{"effective_schedule_rng_seed", r.Seeds.Schedule},
	} {
		if got := d.str(s.key); got != s.want {
			add("%s is %q: round %s's seed is %s (seeds_check)", s.key, got, r.Name, s.want)
		}
	}
	bound, bounded := b.LatencyConstraint[sc]
	if slices.Contains(r.EarlyStopping, sc) {
		if !d.truthy("early_stopping_met") {
			add("early stopping condition not met: %s (latency_check)", d.str("early_stopping_result"))
		}
		if n, _ := d.num("effective_target_latency_ns"); bounded && n > float64(bound.Nanoseconds()) {
			add("effective_target_latency_ns %s is over the bound %d (latency_check)", d.str("effective_target_latency_ns"), bound.Nanoseconds())
		}
	} else {
		if n, _ := d.num("result_99.00_percentile_latency_ns"); bounded && n > float64(bound.Nanoseconds()) {
			add("result_99.00_percentile_latency_ns %s is over the bound %d (latency_check)", d.str("result_99.00_percentile_latency_ns"), bound.Nanoseconds())
		}
		if want, ok := b.MinQueries[sc]; ok {
			if n, _ := d.num("effective_min_query_count"); n < float64(want) {
				add("effective_min_query_count %s is below %d (min_query_count_check)", d.str("effective_min_query_count"), want)
			}
		}
	}
	if sc == benchmarks.Offline && l.Division == "closed" {
		if n, _ := d.num("effective_samples_per_query"); b.OfflineMinSamplesPerQuery == 0 || n < float64(b.OfflineMinSamplesPerQuery) {
			add("effective_samples_per_query %s is below %d (min_query_count_check)", d.str("effective_samples_per_query"), b.OfflineMinSamplesPerQuery)
		}
	}
	// The demo's own minimum stands for the round's (Benchmark.MinDuration).
	want := r.MinDurationOf(b).Milliseconds()
	if n, _ := d.num("effective_min_duration_ms"); n < float64(want) {
		add("effective_min_duration_ms %s is below %d (min_duration_check)", d.str("effective_min_duration_ms"), want)
	}
	if sysDesc != nil && isNetwork(sysDesc) && !strings.Contains(d.str("sut_name"), "Network SUT") {
		add("sut_name %q of a network system lacks \"Network SUT\" (network_check)", d.str("sut_name"))
	}
	if b.LLM {
		if !d.truthy("requested_use_token_latencies") {
			add("use_token_latencies must be on for an LLM benchmark (llm_check)")
		}
		if lim, ok := b.TokenLatency[sc]; ok {
			ttft, ok1 := d.num("result_first_token_99.00_percentile_latency_ns")
			tpot, ok2 := d.num("result_time_per_output_token_99.00_percentile_ns")
			if !ok1 || !ok2 || ttft >= float64(lim.TTFT.Nanoseconds()) || tpot >= float64(lim.TPOT.Nanoseconds()) {
				add("TTFT p99 %s / TPOT p99 %s must be under %d / %d ns (llm_check)",
					d.str("result_first_token_99.00_percentile_latency_ns"), d.str("result_time_per_output_token_99.00_percentile_ns"),
					lim.TTFT.Nanoseconds(), lim.TPOT.Nanoseconds())
			}
		}
	}
	if field := b.ResultField(r, sc); field != "" {
		if _, ok := d.num(field); !ok {
			add("no result %s (get_performance_metric_check)", field)
		}
	}
	return out
}

// accuracy checks the accuracy directory as the checker's AccuracyCheck
// does, and that the accuracy log is truncated with its hash in
// accuracy.txt in every division.
func (c *checker) accuracy(l Layout) {
	dir := l.AccuracyDir()
	if !c.exists(filepath.Join(dir, DetailFile), "accuracy run detail log") {
		return
	}
	d, err := readDetail(dir)
	if err != nil {
		c.add(dir, "%v", err)
		return
	}
	if m := d.str("effective_test_mode"); m != "AccuracyOnly" {
		c.add(d.path, "effective_test_mode is %q, want AccuracyOnly", m)
	}
	for _, e := range d.errors() {
		c.add(d.path, "LoadGen error %s (loadgen_errors_check)", e)
	}
	want := l.Benchmark.AccuracySamples(l.Scenario)
	key := "qsl_reported_total_count"
	if d.has("effective_accuracy_sample_count") {
		key = "effective_accuracy_sample_count"
	}
	if n, _ := d.num(key); n != float64(want) {
		c.add(d.path, "%s %s: the accuracy run must cover %d samples (dataset_check)", key, d.str(key), want)
	}
	log := filepath.Join(dir, AccuracyFile)
	if st, err := os.Stat(log); err != nil {
		c.add(log, "missing accuracy log (accuracy_json_check)")
	} else if st.Size() > c.round.MaxAccuracyLogSize {
		c.add(log, "not truncated: %d bytes, the limit is %d (accuracy_json_check)", st.Size(), c.round.MaxAccuracyLogSize)
	}
	for sub, names := range l.Benchmark.AccuracyExtraFiles {
		have := map[string]bool{}
		for _, f := range files(filepath.Join(dir, sub)) {
			stem, _, _ := strings.Cut(f, ".")
			have[stem] = true
		}
		for _, n := range names {
			if !have[n] {
				c.add(filepath.Join(dir, sub), "missing %s.* (extra_files_check)", n)
			}
		}
	}
	txt := filepath.Join(dir, AccuracyText)
	lines, err := readLines(txt)
	if err != nil {
		c.add(txt, "missing accuracy result (accuracy_result_check)")
		return
	}
	for _, p := range accuracyProblems(lines, c.round, l) {
		c.add(txt, "%s", p)
	}
}

// accuracyProblems reads accuracy.txt's lines as the checker's
// accuracy_result_check: every target's pattern must match a line with a
// value at or above the target and none below it, no value may exceed an
// upper limit, and a hash= line must be there. The open division is held
// to the hash only.
func accuracyProblems(lines []string, r *benchmarks.Round, l Layout) []string {
	var out []string
	if hashOf([]byte(strings.Join(lines, ""))) == "" {
		out = append(out, "no hash= line: the accuracy log was not truncated (accuracy_result_check)")
	}
	if l.Division == "open" {
		return out
	}
	for _, t := range l.Benchmark.TargetsFor(l.Scenario) {
		re, err := pattern(r, t.Metric)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		seen := false
		for _, line := range lines {
			m := re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			v, _ := strconv.ParseFloat(m[1], 64)
			if v >= t.Target() {
				seen = true
			} else {
				out = append(out, fmt.Sprintf("%s %s is below the target %g (accuracy_result_check)", t.Metric, m[1], t.Target()))
			}
		}
		if !seen {
			out = append(out, fmt.Sprintf("no %s at or above the target %g (accuracy_result_check)", t.Metric, t.Target()))
		}
	}
	for _, u := range l.Benchmark.Upper {
		re, err := pattern(r, u.Metric)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		for _, line := range lines {
			if m := re.FindStringSubmatch(line); m != nil {
				if v, _ := strconv.ParseFloat(m[1], 64); v > u.Limit {
					out = append(out, fmt.Sprintf("%s %s is over the upper limit %g (accuracy_result_check)", u.Metric, m[1], u.Limit))
				}
			}
		}
	}
	return out
}

// pattern compiles the checker's pattern of metric, anchored at the start
// of the line as Python's re.match is.
func pattern(r *benchmarks.Round, metric benchmarks.Metric) (*regexp.Regexp, error) {
	p, ok := r.AccuracyPatterns[metric]
	if !ok {
		return nil, fmt.Errorf("round %s has no pattern for metric %s", r.Name, metric)
	}
	re, err := regexp.Compile(`^(?:` + p + `)`)
	if err != nil {
		return nil, fmt.Errorf("metric %s pattern: %w", metric, err)
	}
	return re, nil
}

// readLines returns a file's lines, each with its "\n".
func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		out = append(out, sc.Text()+"\n")
	}
	return out, sc.Err()
}

// hasLine reports whether path has a line that, stripped, is want.
func hasLine(path, want string) bool {
	lines, err := readLines(path)
	if err != nil {
		return false
	}
	for _, l := range lines {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}

// compliance checks the compliance tests of a closed or network
// submission as the checker's ComplianceCheck does, and that their runs
// are VALID and TEST01's accuracy log is truncated.
func (c *checker) compliance(l Layout, sysDesc map[string]any) {
	for _, t := range l.Benchmark.Audits {
		dir := l.ComplianceDir(t)
		if !c.exists(dir, string(t)+" directory (dir_exists_check)") {
			continue
		}
		switch t {
		case benchmarks.TEST01, benchmarks.TEST04:
			c.compliancePerformance(l, t, sysDesc)
		}
		switch t {
		case benchmarks.TEST01:
			c.test01Accuracy(l)
		case benchmarks.TEST06:
			path := filepath.Join(dir, VerifyAcc)
			if c.exists(path, "TEST06 verification (dir_exists_check)") {
				first := hasLine(path, "First token check pass: True") || hasLine(path, "First token check pass: Skipped")
				if !first || !hasLine(path, "EOS check pass: True") || !hasLine(path, "Sample length check pass: True") {
					c.add(path, "TEST06 did not pass: first token, EOS and sample length checks must all pass (accuracy_check)")
				}
			}
		case benchmarks.TEST07, benchmarks.TEST08, benchmarks.TEST09:
			name := VerifyAcc
			if t == benchmarks.TEST09 {
				name = "verify_output_len.txt"
			}
			path := filepath.Join(dir, name)
			if c.exists(path, string(t)+" verification (dir_exists_check)") {
				if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(Pass)) {
					c.add(path, "%s did not pass (accuracy_check)", t)
				}
			}
		}
	}
}

// compliancePerformance is TEST01's and TEST04's performance half.
func (c *checker) compliancePerformance(l Layout, t benchmarks.Test, sysDesc map[string]any) {
	verdict := filepath.Join(l.ComplianceDir(t), VerifyPerf)
	if c.exists(verdict, string(t)+" performance verification (dir_exists_check)") {
		if b, _ := os.ReadFile(verdict); !bytes.Contains(b, []byte(Pass)) {
			c.add(verdict, "%s performance verification did not pass (compliance_performance_check)", t)
		}
	}
	perf := l.CompliancePerformanceDir(t)
	if diff := fileDiff(files(perf), c.round.CompliancePerformanceFiles, AccuracyFile); len(diff) > 0 {
		c.add(perf, "file list differs from %s by %s (compliance_performance_check)", strings.Join(c.round.CompliancePerformanceFiles, ", "), strings.Join(diff, ", "))
	}
	c.performance(l, perf, sysDesc, t)
}

// test01Accuracy is TEST01's accuracy half: "TEST PASS" in
// verify_accuracy.txt, or the baseline and compliance accuracies within
// the benchmark's delta.
func (c *checker) test01Accuracy(l Layout) {
	t := benchmarks.TEST01
	acc := l.ComplianceAccuracyDir(t)
	verdict := filepath.Join(l.ComplianceDir(t), VerifyAcc)
	if !c.exists(verdict, "TEST01 accuracy verification (dir_exists_check)") {
		return
	}
	if st, err := os.Stat(filepath.Join(acc, AccuracyFile)); err == nil && st.Size() > c.round.MaxAccuracyLogSize {
		c.add(filepath.Join(acc, AccuracyFile), "not truncated: %d bytes", st.Size())
	}
	if h, err := AccuracyHash(acc); err != nil || h == "" {
		c.add(filepath.Join(acc, AccuracyText), "missing, or without hash=: truncate_accuracy_log.py needs it")
	}
	if hasLine(verdict, Pass) {
		return
	}
	if diff := fileDiff(files(acc), c.round.TEST01AccuracyFiles); len(diff) > 0 {
		c.add(acc, "TEST01 accuracy failed and the directory's files differ from %s by %s (accuracy_check)",
			strings.Join(c.round.TEST01AccuracyFiles, ", "), strings.Join(diff, ", "))
		return
	}
	for _, q := range l.Benchmark.TargetsFor(l.Scenario) {
		re, err := pattern(c.round, q.Metric)
		if err != nil {
			c.add(acc, "%v", err)
			return
		}
		base := scoreIn(filepath.Join(acc, BaselineAccuracy), re)
		comp := scoreIn(filepath.Join(acc, ComplianceAcc), re)
		delta := l.Benchmark.DeltaPct[q.Metric]
		if base == 0 || comp == 0 || math.Abs(1-base/comp)*100 > delta {
			c.add(acc, "TEST01 %s: baseline %g and compliance %g differ by more than %g%% (accuracy_check)", q.Metric, base, comp, delta)
		}
	}
}

// scoreIn returns the last value re reads from a file's lines, or 0.
func scoreIn(path string, re *regexp.Regexp) float64 {
	lines, _ := readLines(path)
	var v float64
	for _, line := range lines {
		if m := re.FindStringSubmatch(line); m != nil {
			v, _ = strconv.ParseFloat(m[1], 64)
		}
	}
	return v
}

// fileDiff is the checker's files_diff: the names in one list and not the
// other, less optional ones (and the ones it always allows).
func fileDiff(have, want []string, optional ...string) []string {
	optional = append(optional, "mlperf_log_trace.json", "results.json", ".gitkeep")
	var out []string
	for _, f := range have {
		if !slices.Contains(want, f) && !slices.Contains(optional, f) {
			out = append(out, "+"+f)
		}
	}
	for _, f := range want {
		if !slices.Contains(have, f) && !slices.Contains(optional, f) {
			out = append(out, "-"+f)
		}
	}
	return out
}
