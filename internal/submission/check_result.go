package submission

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// scenarioOf maps a scenario directory's name to MLPerf's spelling as the
// checker's SCENARIO_MAPPING does ("offline" is Offline); ok is false for
// a name that is no scenario.
func scenarioOf(dir string) (benchmarks.Scenario, bool) {
	for _, sc := range append(benchmarks.Scenarios(), benchmarks.Interactive) {
		if strings.EqualFold(dir, string(sc)) {
			return sc, true
		}
	}
	return benchmarks.Scenario(dir), false
}

// category is the system description's system_type as a category, and
// whether it is one.
func category(sysDesc map[string]any) (benchmarks.Category, bool) {
	st, _ := sysDesc["system_type"].(string)
	if st == "edge,datacenter" {
		st = string(benchmarks.DatacenterEdge)
	}
	cat := benchmarks.Category(st)
	return cat, slices.Contains(benchmarks.Categories(), cat)
}

// benchmark checks one benchmark directory of a system: in the closed
// and network divisions its scenarios against the category (the
// checker's Loader.check_scenarios, directory names lower-cased), then
// each scenario.
func (c *checker) benchmark(l Layout, dir string, mapping map[string]string, sysDesc map[string]any) {
	bdir := filepath.Join(l.org(), "results", l.System, dir)
	have := subdirs(bdir)
	c.scope = c.resultsOf(l.Division, l.Submitter, l.System, dir)
	b, name, known := c.round.CheckerModel(dir, mapping)
	l.Benchmark, l.BenchmarkDir = b, dir
	if len(have) == 0 {
		c.strict(bdir, "no scenario directory (mlperf-host's rule; the checker counts no result here)")
		return
	}
	if l.Division != "open" {
		cat, ok := category(sysDesc)
		if sysDesc == nil || !ok {
			return // the system description's problem refuses these results already
		}
		if !known {
			c.add(bdir, "benchmark %q is none of round %s's (%s) nor a name the checker maps: the checker stops on this tree (check_scenarios)",
				name, c.round.Name, strings.Join(c.round.Names(), ", "))
			return
		}
		req, ok := b.Requires(cat)
		if !ok {
			c.add(bdir, "%s is not a %s benchmark in round %s: the checker stops on this tree (check_scenarios)", name, cat, c.round.Name)
			return
		}
		lower := map[string]bool{}
		for _, s := range have {
			lower[strings.ToLower(s)] = true
		}
		for _, sc := range req {
			if !lower[strings.ToLower(string(sc))] {
				c.add(bdir, "%s systems must submit %s: it is missing (check_scenarios)", cat, sc)
			}
		}
		for _, s := range have {
			sc, _ := scenarioOf(s)
			if !b.Allows(cat, sc) {
				c.add(filepath.Join(bdir, s), "scenario not allowed for %s %s systems (check_scenarios)", name, cat)
			}
		}
		if len(b.OneOf(cat)) > 0 && !lower["server"] && !lower["interactive"] {
			c.add(bdir, "%s systems must submit one of Interactive or Server (check_scenarios)", cat)
		}
	}
	for _, s := range have {
		c.scope = []string{strings.Join([]string{l.Division, l.Submitter, "results", l.System, dir, s}, "/")}
		c.scenario(l, s, name, known, sysDesc)
	}
}

// scenario checks one result: its performance, accuracy, measurements,
// power and (closed and network divisions) compliance.
func (c *checker) scenario(l Layout, dir, name string, known bool, sysDesc map[string]any) {
	res := c.result(c.scope[0])
	sc, _ := scenarioOf(dir)
	l.Scenario, l.ScenarioName = sc, dir
	sdir := filepath.Join(l.org(), "results", l.System, l.BenchmarkDir, dir)
	if !known {
		c.add(sdir, "benchmark directory %q names no model of round %s, nor does model_mapping.json: the checker knows no rules for %q (performance_sample_count_check)",
			l.BenchmarkDir, c.round.Name, name)
		return
	}
	res.Benchmark, res.Scenario = name, sc
	perf := c.performance(l, l.PerformanceDir(), sysDesc, "", res)
	c.accuracy(l)
	c.measurements(l)
	c.power(l, perf, res)
	if l.Division != "open" {
		c.compliance(l, sysDesc)
	}
}
