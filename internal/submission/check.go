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
	Path string
	Msg  string
}

// String reads "closed/org/results/...: message".
func (p Problem) String() string { return p.Path + ": " + p.Msg }

// checker accumulates problems.
type checker struct {
	root     string
	round    *benchmarks.Round
	problems []Problem
}

func (c *checker) add(path, format string, args ...any) {
	rel, err := filepath.Rel(c.root, path)
	if err != nil {
		rel = path
	}
	c.problems = append(c.problems, Problem{Path: rel, Msg: fmt.Sprintf(format, args...)})
}

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

func files(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// Check checks the submission tree at root against round r's rules and
// returns every problem found, or none. It enforces what the round's
// official submission checker enforces on a LoadGen submission without
// power measurements (tools/submission/submission_checker: its
// performance, accuracy, system, measurements and compliance checks; each
// message names the check it mirrors), and more: every performance and
// compliance run VALID and free of LoadGen errors, the logs' scenario that
// of their directory, the accuracy logs truncated with a hash in both
// divisions, and documentation/calibration.md in the closed division.
func Check(root string, r *benchmarks.Round) []Problem {
	c := &checker{root: root, round: r}
	divisions := subdirs(root)
	if len(divisions) == 0 {
		c.add(root, "no division directory (%s)", strings.Join(r.Divisions, ", "))
	}
	for _, div := range divisions {
		if !slices.Contains(r.Divisions, div) {
			c.add(filepath.Join(root, div), "unknown division: want one of %s (the checker ignores this directory)", strings.Join(r.Divisions, ", "))
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
	l := Layout{Root: c.root, Division: div, Submitter: org, Round: c.round}
	if div != "open" {
		c.exists(l.CalibrationFile(), "calibration documentation of the closed division")
	}
	for _, sys := range subdirs(results) {
		l.System = sys
		sysDesc := c.system(l)
		for _, name := range subdirs(filepath.Join(results, sys)) {
			b, err := c.round.Lookup(name)
			if err != nil || b.SubmissionName != name {
				c.add(filepath.Join(results, sys, name), "unknown benchmark directory in round %s: want one of %s",
					c.round.Name, strings.Join(c.round.Names(), ", "))
				continue
			}
			l.Benchmark = b
			c.benchmark(l, sysDesc)
		}
	}
}

// system checks the system description (the checker's SystemCheck) and
// returns it, nil when it cannot be read.
func (c *checker) system(l Layout) map[string]any {
	path := l.SystemFile()
	if !c.exists(path, "system description (SystemCheck.missing_check)") {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		c.add(path, "%v", err)
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.add(path, "not JSON: %v", err)
		return nil
	}
	for _, p := range CheckSystem(m, c.round, l.Division, l.Submitter) {
		c.add(path, "%s", p)
	}
	return m
}

// CheckSystem returns what the checker's SystemCheck finds wrong with a
// system description of division and submitter.
func CheckSystem(m map[string]any, r *benchmarks.Round, division, submitter string) []string {
	var out []string
	status, _ := m["status"].(string)
	if !slices.Contains(r.Availabilities, strings.ToLower(status)) {
		out = append(out, fmt.Sprintf("status %q: want one of %s (availability_check)", status, strings.Join(r.Availabilities, ", ")))
	}
	st, _ := m["system_type"].(string)
	if !slices.Contains(categoryNames(), st) && st != "edge,datacenter" {
		out = append(out, fmt.Sprintf("system_type %q: want one of %s (system_type_check)", st, strings.Join(categoryNames(), ", ")))
	}
	network := isNetwork(m)
	if division == "closed" && network {
		out = append(out, "is_network is true in the closed division (network_check)")
	}
	if division == "network" && !network {
		out = append(out, "the network division needs is_network true (network_check)")
	}
	var missing, empty []string
	for _, f := range r.SystemFields {
		v, ok := m[f]
		switch {
		case !ok:
			missing = append(missing, f)
		case slices.Contains(r.MeaningfulFields, f) && !pyTruthy(v):
			empty = append(empty, f)
		}
	}
	if len(missing) > 0 {
		out = append(out, "missing fields "+strings.Join(missing, ", ")+" (required_fields_check)")
	}
	if len(empty) > 0 {
		out = append(out, "fields "+strings.Join(empty, ", ")+" need a meaningful value, not empty or 0 (required_fields_check)")
	}
	if s, _ := m["submitter"].(string); !strings.EqualFold(s, submitter) {
		out = append(out, fmt.Sprintf("submitter %q does not match the directory %s (submitter_check)", s, submitter))
	}
	if d, _ := m["division"].(string); !strings.EqualFold(d, division) {
		out = append(out, fmt.Sprintf("division %q does not match the directory %s (division_check)", d, division))
	}
	return out
}

func categoryNames() []string {
	var out []string
	for _, c := range benchmarks.Categories() {
		out = append(out, string(c))
	}
	return out
}

// isNetwork is the checker's reading of is_network: the string "true".
func isNetwork(m map[string]any) bool {
	s, _ := m["is_network"].(string)
	return strings.EqualFold(s, "true")
}

// pyTruthy is Python's truth of a JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// benchmark checks one benchmark directory of a system: its scenarios
// against the category (closed and network divisions, as the checker's
// Loader.check_scenarios), then each scenario.
func (c *checker) benchmark(l Layout, sysDesc map[string]any) {
	dir := filepath.Join(l.Root, l.Division, l.Submitter, "results", l.System, l.Benchmark.SubmissionName)
	have := subdirs(dir)
	if sysDesc != nil && l.Division != "open" {
		st, _ := sysDesc["system_type"].(string)
		if st == "edge,datacenter" {
			st = string(benchmarks.DatacenterEdge)
		}
		cat := benchmarks.Category(st)
		req, ok := l.Benchmark.Requires(cat)
		switch {
		case !slices.Contains(benchmarks.Categories(), cat):
		case !ok:
			c.add(dir, "%s is not a %s benchmark in round %s (the checker stops on this tree)", l.Benchmark.SubmissionName, cat, c.round.Name)
		default:
			for _, sc := range req {
				if !slices.Contains(have, string(sc)) {
					c.add(dir, "%s systems must submit %s: it is missing (check_scenarios)", cat, sc)
				}
			}
			for _, s := range have {
				if !l.Benchmark.Allows(cat, benchmarks.Scenario(s)) {
					c.add(filepath.Join(dir, s), "scenario not allowed for %s systems (check_scenarios)", cat)
				}
			}
			opt := l.Benchmark.Optional[cat]
			if slices.Contains(opt, benchmarks.Server) && slices.Contains(opt, benchmarks.Interactive) &&
				!slices.Contains(have, string(benchmarks.Server)) && !slices.Contains(have, string(benchmarks.Interactive)) {
				c.add(dir, "%s systems must submit one of Interactive or Server (check_scenarios)", cat)
			}
		}
	}
	for _, s := range have {
		sc := benchmarks.Scenario(s)
		if !slices.Contains(benchmarks.Scenarios(), sc) {
			c.add(filepath.Join(dir, s), "scenario directory mlperf-host cannot check: want one of SingleStream, MultiStream, Server, Offline")
			continue
		}
		l.Scenario = sc
		c.scenario(l, sysDesc)
	}
}

func (c *checker) scenario(l Layout, sysDesc map[string]any) {
	c.performance(l, l.PerformanceDir(), sysDesc, "")
	c.accuracy(l)
	c.measurements(l)
	if l.Division != "open" {
		c.compliance(l, sysDesc)
	}
}

// measurements is the checker's MeasurementsCheck.
func (c *checker) measurements(l Layout) {
	path := l.MeasurementsFile()
	if c.exists(path, "measurements description (MeasurementsCheck.missing_check)") {
		var m map[string]any
		b, _ := os.ReadFile(path)
		if err := json.Unmarshal(b, &m); err != nil {
			c.add(path, "not JSON: %v", err)
		} else {
			for _, f := range c.round.MeasurementsFields {
				if v, ok := m[f]; !ok {
					c.add(path, "field %s is missing (required_fields_check)", f)
				} else if !pyTruthy(v) {
					c.add(path, "field %s needs a meaningful value (required_fields_check)", f)
				}
			}
		}
	}
	for _, f := range c.round.MeasurementsFiles {
		c.exists(filepath.Join(l.MeasurementsDir(), f), "measurements file (required_files_check)")
	}
	c.exists(l.SrcDir(), "source directory (directory_exist_check)")
}
