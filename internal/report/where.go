package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Where is what a run's directory tells of it in a submission tree
// (DIVISION/SUBMITTER/results/SYSTEM/BENCHMARK/SCENARIO/..., or
// compliance/ in round 5.1's layout): the directories' names, as they are
// spelled. All empty for a directory outside a tree.
type Where struct {
	Division, Submitter, System, Benchmark, Scenario string
	// Part is the run's place in the scenario's directory:
	// "performance/run_1", "accuracy", "TEST01/performance/run_1".
	Part string
	// root is the tree's root, where the division's directory is.
	root string
}

// whereOf reads a run directory's path as a place in a submission tree.
func whereOf(dir string) Where {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Where{}
	}
	parts := strings.Split(filepath.ToSlash(abs), "/")
	for i := len(parts) - 4; i >= 2; i-- {
		if (parts[i] == "results" || parts[i] == "compliance") && slices.Contains([]string{"closed", "open", "network"}, parts[i-2]) {
			return Where{Division: parts[i-2], Submitter: parts[i-1], System: parts[i+1], Benchmark: parts[i+2], Scenario: parts[i+3],
				Part: strings.Join(parts[i+4:], "/"), root: filepath.FromSlash(strings.Join(parts[:i-2], "/") + "/")}
		}
	}
	return Where{}
}

// modelMapping reads the open division's model_mapping.json, which names
// the benchmark each of the submitter's directories stands for.
func (w Where) modelMapping() map[string]string {
	if w.Division != "open" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(w.root, w.Division, w.Submitter, "model_mapping.json"))
	if err != nil {
		return nil
	}
	var m map[string]string
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// part names the run's place in its scenario's directory for a reader:
// "performance", "accuracy", "TEST01", "ranging"; "" outside a tree.
func (w Where) part() string {
	p := strings.TrimSuffix(w.Part, "/run_1")
	if test, rest, ok := strings.Cut(p, "/"); ok && strings.HasPrefix(test, "TEST") {
		if rest == "performance" {
			return test
		}
		return test + " " + rest
	}
	if p == "performance/ranging" {
		return "ranging"
	}
	return p
}

// resolve finds the rules the run's page reads: the benchmark its tree
// directory names (through the checker's own mapping and the submitter's
// model_mapping.json) or its log does (mlperf-host logs qsl_name as
// "BENCHMARK (DATA SET)"), in round (nil: the newest round that has it).
func (r *Run) resolve(round *benchmarks.Round) {
	rounds := []*benchmarks.Round{round}
	if round == nil {
		rounds = nil
		names := benchmarks.RoundNames()
		for i := len(names) - 1; i >= 0; i-- {
			rounds = append(rounds, benchmarks.MustRound(names[i]))
		}
	}
	r.Round = rounds[0]
	mapping := r.Where.modelMapping()
	for _, name := range []string{r.Where.Benchmark, r.logBenchmark()} {
		if name == "" {
			continue
		}
		for _, rd := range rounds {
			if b, _, ok := rd.CheckerModel(name, mapping); ok {
				r.Round, r.Bench = rd, &b
				return
			}
		}
	}
}
