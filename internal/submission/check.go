package submission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Problem is one rule a submission tree breaks.
type Problem struct {
	// Path is the file or directory at fault, relative to the root.
	Path string `json:"path"`
	Msg  string `json:"message"`
	// Strict marks a rule of mlperf-host's own that the official checker
	// does not enforce: a warning, unless the tree is checked strictly.
	Strict bool `json:"strict,omitempty"`
	// Results are the results the problem refuses (their Result.Path);
	// none for a problem of the tree as a whole.
	Results []string `json:"results,omitempty"`
}

// String reads "closed/org/results/...: message".
func (p Problem) String() string { return p.Path + ": " + p.Msg }

// Result is one result as the official checker counts them: a scenario
// directory of a system's benchmark.
type Result struct {
	// Path is DIVISION/SUBMITTER/results/SYSTEM/BENCHMARK/SCENARIO, as
	// the directories are named.
	Path string `json:"result"`
	// Benchmark is the checker's name of the benchmark ("resnet" for a
	// resnet50 directory), Scenario the directory's scenario in MLPerf's
	// spelling ("Offline" for offline); empty when the checker knows
	// none.
	Benchmark string              `json:"benchmark,omitempty"`
	Scenario  benchmarks.Scenario `json:"scenario,omitempty"`
	// Metric is the result as the checker reports it, in Unit
	// ("tokens/s", "samples/s", "ms"); HasMetric false when the
	// performance log gives none.
	Metric    float64 `json:"metric,omitempty"`
	Unit      string  `json:"unit,omitempty"`
	HasMetric bool    `json:"-"`
	// Inferred marks a result the checker infers from a run of another
	// scenario (SingleStream standing for MultiStream, say).
	Inferred bool `json:"inferred,omitempty"`
	// Power is the power metric (W for Offline, Server and Interactive, mJ
	// per query for SingleStream and MultiStream), when the result has
	// power measurements.
	Power     float64 `json:"power,omitempty"`
	PowerUnit string  `json:"power_unit,omitempty"`
}

// Report is what Check finds: every result of the tree, and every problem.
type Report struct {
	Results  []Result  `json:"-"`
	Problems []Problem `json:"-"`
}

// Errors returns the problems that make the tree invalid: those the
// official checker finds, and mlperf-host's own (Strict) when strict.
func (r *Report) Errors(strict bool) []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if strict || !p.Strict {
			out = append(out, p)
		}
	}
	return out
}

// Warnings returns the problems of mlperf-host's own rules, which refuse
// nothing unless the tree is checked strictly.
func (r *Report) Warnings() []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.Strict {
			out = append(out, p)
		}
	}
	return out
}

// Refusals returns the problems that refuse the result at path: the
// official checker's, and mlperf-host's own when strict.
func (r *Report) Refusals(path string, strict bool) []Problem {
	var out []Problem
	for _, p := range r.Errors(strict) {
		if slices.Contains(p.Results, path) {
			out = append(out, p)
		}
	}
	return out
}

// checker accumulates problems. scope is the results a problem found now
// refuses.
type checker struct {
	root     string
	round    *benchmarks.Round
	report   *Report
	scope    []string
	byResult map[string]int
}

func (c *checker) problem(strict bool, path, format string, args ...any) {
	rel, err := filepath.Rel(c.root, path)
	if err != nil {
		rel = path
	}
	c.report.Problems = append(c.report.Problems, Problem{Path: filepath.ToSlash(rel), Msg: fmt.Sprintf(format, args...),
		Strict: strict, Results: slices.Clone(c.scope)})
}

// add records a problem the official checker finds too.
func (c *checker) add(path, format string, args ...any) { c.problem(false, path, format, args...) }

// strict records a problem of mlperf-host's own rules; its message says
// what the official checker does instead.
func (c *checker) strict(path, format string, args ...any) { c.problem(true, path, format, args...) }

// result returns the result at path (relative to the root), to fill in.
func (c *checker) result(path string) *Result { return &c.report.Results[c.byResult[path]] }

// exists reports whether path exists and, for a file, is not empty.
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

// subdirs lists the directories in dir, sorted, as the checker's list_dir
// does (a link to a directory counts).
func subdirs(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && st.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// files lists the files in dir, sorted, as the checker's list_files does.
func files(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && !st.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// Check checks the submission tree at root against round r's rules, as
// the round's official submission checker does
// (tools/submission/submission_checker: its system, performance,
// accuracy, measurements, power and compliance checks, each message
// naming the check it mirrors), result by result: a result is a scenario
// directory, read with the checker's own lookups (benchmark directory
// names it maps, open/SUBMITTER/model_mapping.json, lower-case scenario
// names, the measurements file it picks, Interactive directories holding
// a Server run, results inferred from another scenario's run).
//
// Problems the official checker does not find but mlperf-host's rules do
// are marked Strict: a performance run that is not VALID or has LoadGen
// errors, an accuracy directory whose log is not an accuracy run, an
// Interactive run over Interactive's own token latency limits, accuracy
// logs without their hash in the open division or in TEST01, no
// calibration.md in the closed division.
func Check(root string, r *benchmarks.Round) *Report {
	c := &checker{root: root, round: r, report: &Report{}, byResult: map[string]int{}}
	divisions := subdirs(root)
	if len(divisions) == 0 {
		c.strict(root, "no division directory (%s): no result to check (mlperf-host's rule; the checker finds nothing wrong with an empty tree)", strings.Join(r.Divisions, ", "))
	}
	for _, div := range divisions {
		if !slices.Contains(r.Divisions, div) {
			c.strict(filepath.Join(root, div), "unknown division: want one of %s (the checker ignores this directory)", strings.Join(r.Divisions, ", "))
			continue
		}
		for _, org := range subdirs(filepath.Join(root, div)) {
			c.org(div, org)
		}
	}
	return c.report
}

// resultsOf lists the result paths under dir (a system's results
// directory, or one of its benchmarks) and records each as a result.
func (c *checker) resultsOf(div, org, sys string, benches ...string) []string {
	base := filepath.Join(c.root, div, org, "results", sys)
	if len(benches) == 0 {
		benches = subdirs(base)
	}
	var out []string
	for _, b := range benches {
		for _, sc := range subdirs(filepath.Join(base, b)) {
			p := strings.Join([]string{div, org, "results", sys, b, sc}, "/")
			if _, ok := c.byResult[p]; !ok {
				c.byResult[p] = len(c.report.Results)
				c.report.Results = append(c.report.Results, Result{Path: p})
			}
			out = append(out, p)
		}
	}
	return out
}

func (c *checker) org(div, org string) {
	base := filepath.Join(c.root, div, org)
	results := filepath.Join(base, "results")
	c.scope = nil
	if !c.exists(results, "results directory (the checker stops on this tree)") {
		return
	}
	var all []string
	for _, sys := range subdirs(results) {
		all = append(all, c.resultsOf(div, org, sys)...)
	}
	mapping := c.modelMapping(div, org, all)
	if div != "open" {
		c.scope = nil
		c.calibration(base)
	}
	for _, sys := range subdirs(results) {
		l := Layout{Root: c.root, Division: div, Submitter: org, System: sys, Round: c.round}
		c.scope = c.resultsOf(div, org, sys)
		sysDesc := c.system(l)
		for _, name := range subdirs(filepath.Join(results, sys)) {
			c.benchmark(l, name, mapping, sysDesc)
		}
	}
}

// modelMapping reads open/SUBMITTER/model_mapping.json, which maps the
// open division's benchmark directory names to the checker's.
func (c *checker) modelMapping(div, org string, results []string) map[string]string {
	if div != "open" {
		return nil
	}
	path := filepath.Join(c.root, div, org, "model_mapping.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.scope = results
		c.add(path, "not a JSON object: %v (the checker stops on this tree)", err)
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// calibration is mlperf-host's rule that the closed division documents
// its calibration: calibration.md at the submitter's root, where
// published submissions have it, or in documentation/, where mlperf-host
// writes it. The checker does not look for it.
func (c *checker) calibration(base string) {
	for _, p := range []string{filepath.Join(base, "calibration.md"), filepath.Join(base, "documentation", "calibration.md")} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Size() > 0 {
			return
		}
	}
	c.strict(filepath.Join(base, "documentation", "calibration.md"),
		"missing calibration documentation of the closed division, here or as calibration.md above (mlperf-host's rule; the checker does not look for it)")
}
