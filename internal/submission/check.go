package submission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// Problem is one rule a submission tree breaks.
type Problem struct {
	// Path is the file or directory at fault, relative to the root.
	Path string
	Msg  string
}

// String reads "closed/org/results/...: message".
func (p Problem) String() string { return p.Path + ": " + p.Msg }

// Official seeds a closed submission must use (the official mlperf.conf).
var officialSeeds = map[string]string{
	"effective_qsl_rng_seed":          "1780908523862526354",
	"effective_sample_index_rng_seed": "14771362308971278857",
	"effective_schedule_rng_seed":     "18209322760996052031",
}

// checker accumulates problems.
type checker struct {
	root     string
	problems []Problem
}

func (c *checker) add(path, format string, args ...any) {
	rel, err := filepath.Rel(c.root, path)
	if err != nil {
		rel = path
	}
	c.problems = append(c.problems, Problem{Path: rel, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) exists(path, what string) bool {
	st, err := os.Stat(path)
	if err != nil {
		c.add(path, "missing %s", what)
		return false
	}
	if !st.IsDir() && st.Size() == 0 {
		c.add(path, "empty %s", what)
		return false
	}
	return true
}

func subdirs(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// Check checks the submission tree at root and returns every problem
// found, or none. It checks, per division and submitter: the system
// descriptions; per system and benchmark, that every scenario the
// system's category requires is there; per scenario, that the performance
// run is VALID, error-free, of the right scenario and meets the
// benchmark's minimum duration and query count (and, in the closed
// division, used the official seeds), that the accuracy run reached the
// quality target, that the measurements files exist, and that each
// compliance test the benchmark requires passed.
func Check(root string) []Problem {
	c := &checker{root: root}
	divisions := subdirs(root)
	if len(divisions) == 0 {
		c.add(root, "no division directory (closed or open)")
	}
	for _, div := range divisions {
		if div != "closed" && div != "open" {
			c.add(filepath.Join(root, div), "unknown division: want closed or open")
			continue
		}
		for _, org := range subdirs(filepath.Join(root, div)) {
			c.org(div, org)
		}
	}
	return c.problems
}

func (c *checker) org(div, org string) {
	base := filepath.Join(c.root, div, org)
	results := filepath.Join(base, "results")
	if !c.exists(results, "results directory") {
		return
	}
	for _, sys := range subdirs(results) {
		l := Layout{Root: c.root, Division: div, Submitter: org, System: sys}
		category, ok := c.system(l)
		for _, name := range subdirs(filepath.Join(results, sys)) {
			b, err := benchmarks.Lookup(name)
			if err != nil || b.SubmissionName != name {
				c.add(filepath.Join(results, sys, name), "unknown benchmark directory: want one of %s", strings.Join(submissionNames(), ", "))
				continue
			}
			l.Benchmark = b
			c.benchmark(l, category, ok)
		}
	}
}

func submissionNames() []string {
	var n []string
	for _, b := range benchmarks.All() {
		n = append(n, b.SubmissionName)
	}
	return n
}

// system checks the system description and returns its categories.
func (c *checker) system(l Layout) ([]benchmarks.Category, bool) {
	path := l.SystemFile()
	if !c.exists(path, "system description") {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		c.add(path, "%v", err)
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.add(path, "not JSON: %v", err)
		return nil, false
	}
	for _, f := range RequiredSystemFields() {
		if v, ok := m[f]; !ok || v == "" || v == nil {
			c.add(path, "field %q is missing or empty", f)
		}
	}
	if m["division"] != l.Division {
		c.add(path, "division %v does not match the directory %s", m["division"], l.Division)
	}
	if m["submitter"] != l.Submitter {
		c.add(path, "submitter %v does not match the directory %s", m["submitter"], l.Submitter)
	}
	var cats []benchmarks.Category
	st, _ := m["system_type"].(string)
	for _, t := range strings.Split(st, ",") {
		switch t = strings.TrimSpace(t); t {
		case string(benchmarks.Edge), string(benchmarks.Datacenter):
			cats = append(cats, benchmarks.Category(t))
		default:
			c.add(path, "system_type %q: want edge, datacenter or datacenter,edge", st)
			return nil, false
		}
	}
	return cats, true
}

func (c *checker) benchmark(l Layout, cats []benchmarks.Category, known bool) {
	dir := filepath.Join(l.org(), "results", l.System, l.Benchmark.SubmissionName)
	have := subdirs(dir)
	if known {
		for _, cat := range cats {
			for _, sc := range l.Benchmark.Requires(cat) {
				if !slices.Contains(have, string(sc)) {
					c.add(dir, "%s systems must submit %s: it is missing", cat, sc)
				}
			}
		}
	}
	for _, s := range have {
		if !slices.Contains(benchmarks.Scenarios(), benchmarks.Scenario(s)) {
			c.add(filepath.Join(dir, s), "unknown scenario directory")
			continue
		}
		l.Scenario = benchmarks.Scenario(s)
		c.scenario(l)
	}
}

func (c *checker) detail(dir string) *mllog.Log {
	path := filepath.Join(dir, DetailFile)
	if !c.exists(path, "detail log") {
		return nil
	}
	c.exists(filepath.Join(dir, SummaryFile), "summary log")
	f, err := os.Open(path)
	if err != nil {
		c.add(path, "%v", err)
		return nil
	}
	defer f.Close()
	log, err := mllog.Parse(f)
	if err != nil {
		c.add(path, "%v", err)
		return nil
	}
	for _, e := range log.Errors() {
		c.add(path, "line %d: LoadGen error %s = %s", e.Line, e.Key, e.Value)
	}
	return log
}

// performance checks one performance run's detail log against the rules.
func (c *checker) performance(l Layout, dir string) *mllog.Log {
	log := c.detail(dir)
	if log == nil {
		return nil
	}
	path := filepath.Join(dir, DetailFile)
	if sc, _ := log.String("effective_scenario"); sc != string(l.Scenario) {
		c.add(path, "effective_scenario is %q, the directory says %s", sc, l.Scenario)
	}
	if v, _ := log.String("result_validity"); v != "VALID" {
		reason, _ := log.String("result_invalid_reason")
		c.add(path, "result_validity is %q %s", v, reason)
	}
	min := l.Benchmark.Minimum(l.Scenario)
	if d, err := log.Float("effective_min_duration_ms"); err != nil || d < float64(min.Duration.Milliseconds()) {
		c.add(path, "effective_min_duration_ms %v is below the rules' %d (%v)", d, min.Duration.Milliseconds(), err)
	}
	// Offline has one query: LoadGen keeps its minimum as a sample count.
	q, err := log.Float("effective_min_query_count")
	if s, serr := log.Float("effective_min_sample_count"); serr == nil && l.Scenario == benchmarks.Offline {
		q, err = max(q, s), nil
	}
	if err != nil || q < float64(min.Queries) {
		c.add(path, "effective_min_query_count %v is below the rules' %d (%v)", q, min.Queries, err)
	}
	if psc, err := log.Float("effective_performance_sample_count"); err != nil || psc < float64(l.Benchmark.PerformanceSampleCount) {
		c.add(path, "effective_performance_sample_count %v is below the benchmark's %d (%v)", psc, l.Benchmark.PerformanceSampleCount, err)
	}
	if l.Division == "closed" {
		for k, want := range officialSeeds {
			if got, _ := log.String(k); got != want {
				c.add(path, "%s is %q: the closed division uses the official seed %s", k, got, want)
			}
		}
	}
	return log
}

var accuracyRe = regexp.MustCompile(`accuracy=([0-9.]+)%`)

func (c *checker) scenario(l Layout) {
	c.performance(l, l.PerformanceDir())

	acc := l.AccuracyDir()
	if log := c.detail(acc); log != nil {
		if m, _ := log.String("effective_test_mode"); m != "AccuracyOnly" {
			c.add(filepath.Join(acc, DetailFile), "effective_test_mode is %q, want AccuracyOnly", m)
		}
	}
	c.exists(filepath.Join(acc, AccuracyFile), "accuracy log")
	if c.exists(filepath.Join(acc, AccuracyText), "accuracy result") {
		b, _ := os.ReadFile(filepath.Join(acc, AccuracyText))
		m := accuracyRe.FindSubmatch(b)
		target := l.Benchmark.Quality.Target()
		if m == nil {
			c.add(filepath.Join(acc, AccuracyText), "no accuracy=N%% line")
		} else if v, _ := strconv.ParseFloat(string(m[1]), 64); v < target {
			c.add(filepath.Join(acc, AccuracyText), "accuracy %v%% is below the target %.4f%%", v, target)
		}
	}

	meas := l.MeasurementsDir()
	for _, f := range []string{"README.md", "user.conf", filepath.Base(l.MeasurementsFile())} {
		c.exists(filepath.Join(meas, f), "measurements file")
	}

	for _, t := range l.Benchmark.Compliance {
		dir := l.ComplianceDir(t)
		if !c.exists(dir, string(t)+" results") {
			continue
		}
		c.compliance(l, t)
	}
}

func (c *checker) compliance(l Layout, t benchmarks.Test) {
	dir := l.ComplianceDir(t)
	verdicts := []string{VerifyPerf}
	if t == benchmarks.TEST01 {
		verdicts = append(verdicts, VerifyAcc)
		c.exists(filepath.Join(l.ComplianceAccuracyDir(t), AccuracyFile), "TEST01 accuracy log")
	}
	for _, v := range verdicts {
		path := filepath.Join(dir, v)
		if !c.exists(path, "verdict") {
			continue
		}
		b, _ := os.ReadFile(path)
		if !strings.Contains(string(b), Pass) {
			c.add(path, "%s did not pass", t)
		}
	}
	if log := c.detail(l.CompliancePerformanceDir(t)); log != nil {
		if v, _ := log.String("result_validity"); v != "VALID" {
			c.add(filepath.Join(l.CompliancePerformanceDir(t), DetailFile), "%s run result_validity is %q", t, v)
		}
	}
}
