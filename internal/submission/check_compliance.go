package submission

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// compliance checks the compliance tests of a closed or network
// submission as the checker's ComplianceCheck does (its
// dir_exists_check, performance_check, accuracy_check and
// compliance_performance_check, test by test); and mlperf-host's own
// rule that TEST01's accuracy log is truncated with its hash.
func (c *checker) compliance(l Layout, sysDesc map[string]any) {
	for _, t := range l.Benchmark.Audits {
		dir := l.ComplianceDir(t)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			c.add(dir, "missing %s directory (dir_exists_check)", t)
		}
		need := func(name, what string) bool {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err != nil {
				c.add(p, "missing %s %s (dir_exists_check)", t, what)
				return false
			}
			return true
		}
		switch t {
		case benchmarks.TEST01, benchmarks.TEST06, benchmarks.TEST07, benchmarks.TEST08:
			need(VerifyAcc, "accuracy verification")
		case benchmarks.TEST09:
			need(VerifyOutputLen, "output length verification")
		}
		if t == benchmarks.TEST01 || t == benchmarks.TEST04 {
			need(VerifyPerf, "performance verification")
			if need(filepath.Join("performance", "run_1", DetailFile), "performance run detail log; the checker stops on this tree") {
				c.performance(l, l.CompliancePerformanceDir(t), sysDesc, t, nil)
			}
		}
		c.complianceAccuracy(l, t)
		if t == benchmarks.TEST01 || t == benchmarks.TEST04 {
			c.compliancePerformance(l, t)
		}
	}
}

// complianceAccuracy is the checker's accuracy_check for test t.
func (c *checker) complianceAccuracy(l Layout, t benchmarks.Test) {
	dir := l.ComplianceDir(t)
	switch t {
	case benchmarks.TEST01:
		c.test01Accuracy(l)
	case benchmarks.TEST06:
		path := filepath.Join(dir, VerifyAcc)
		lines := strippedLines(path)
		if lines == nil {
			return // dir_exists_check said so
		}
		first := slices.Contains(lines, "First token check pass: True") || slices.Contains(lines, "First token check pass: Skipped")
		if !first || !slices.Contains(lines, "EOS check pass: True") || !slices.Contains(lines, "Sample length check pass: True") {
			c.add(path, "TEST06 did not pass: first token, EOS and sample length checks must all pass (accuracy_check)")
		}
	case benchmarks.TEST07, benchmarks.TEST09:
		name := VerifyAcc
		if t == benchmarks.TEST09 {
			name = VerifyOutputLen
		}
		path := filepath.Join(dir, name)
		if b, err := os.ReadFile(path); err == nil && !bytes.Contains(b, []byte(Pass)) {
			c.add(path, "%s did not pass (accuracy_check)", t)
		}
	case benchmarks.TEST08:
		path := filepath.Join(dir, VerifyAcc)
		if lines := strippedLines(path); lines != nil && !slices.Contains(lines, Pass) {
			c.add(path, "TEST08 did not pass (accuracy_check)")
		}
	}
}

// compliancePerformance is the checker's compliance_performance_check
// for TEST01 and TEST04: "TEST PASS" in verify_performance.txt, and the
// run's directory holding its logs and nothing else.
func (c *checker) compliancePerformance(l Layout, t benchmarks.Test) {
	verdict := filepath.Join(l.ComplianceDir(t), VerifyPerf)
	if lines, err := readLines(verdict); err == nil && !slices.ContainsFunc(lines, func(s string) bool { return strings.Contains(s, Pass) }) {
		c.add(verdict, "%s performance verification did not pass (compliance_performance_check)", t)
	}
	perf := l.CompliancePerformanceDir(t)
	if st, err := os.Stat(perf); err != nil || !st.IsDir() {
		c.add(perf, "missing %s performance/run_1 directory (compliance_performance_check)", t)
		return
	}
	if diff := fileDiff(files(perf), c.round.CompliancePerformanceFiles, AccuracyFile); len(diff) > 0 {
		c.add(perf, "file list differs from %s by %s (compliance_performance_check)", strings.Join(c.round.CompliancePerformanceFiles, ", "), strings.Join(diff, ", "))
	}
}

// test01Accuracy is TEST01's accuracy half: "TEST PASS" in
// verify_accuracy.txt, or the baseline and compliance accuracies within
// the benchmark's delta; and mlperf-host's rule that its accuracy log is
// truncated, with its hash.
func (c *checker) test01Accuracy(l Layout) {
	t := benchmarks.TEST01
	acc := l.ComplianceAccuracyDir(t)
	verdict := filepath.Join(l.ComplianceDir(t), VerifyAcc)
	if st, err := os.Stat(filepath.Join(acc, AccuracyFile)); err == nil && st.Size() > c.round.MaxAccuracyLogSize {
		c.strict(filepath.Join(acc, AccuracyFile), "not truncated: %d bytes (mlperf-host's rule; the checker does not look)", st.Size())
	}
	if h, err := AccuracyHash(acc); err == nil && h == "" {
		c.strict(filepath.Join(acc, AccuracyText), "without hash=: truncate_accuracy_log.py was not run (mlperf-host's rule; the checker does not look)")
	}
	lines := strippedLines(verdict)
	if lines == nil || slices.Contains(lines, Pass) {
		return // missing: dir_exists_check said so
	}
	if st, err := os.Stat(acc); err != nil || !st.IsDir() {
		c.add(acc, "TEST01 accuracy failed and there is no accuracy directory (accuracy_check)")
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
			return
		}
	}
}

// scoreIn returns the last value re reads from a file's lines, or 0.
func scoreIn(path string, re *regexp.Regexp) float64 {
	lines, _ := readLines(path)
	var v float64
	for _, line := range lines {
		if m := re.FindStringSubmatch(strings.TrimSuffix(line, "\n")); m != nil {
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
