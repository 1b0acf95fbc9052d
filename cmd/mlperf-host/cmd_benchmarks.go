package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

func (a *app) cmdBenchmarks(_ context.Context, args []string) error {
	fs := a.newFlagSet("benchmarks", "[--round ROUND] [--json] [NAME]",
		"List a round's benchmarks: required scenarios per category, sample counts, quality targets,\nlatency bounds and compliance tests (or one benchmark's row with NAME).")
	round := fs.String("round", benchmarks.Newest, "MLPerf Inference `ROUND`: "+strings.Join(benchmarks.RoundNames(), ", "))
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	r, err := benchmarks.LookupRound(*round)
	if err != nil {
		return exitcode.New(exitcode.Usage, err, "")
	}
	rows := r.All()
	if len(pos) > 0 {
		b, err := r.Lookup(pos[0])
		if err != nil {
			return exitcode.New(exitcode.Usage, err, "")
		}
		rows = []benchmarks.Benchmark{b}
	}
	if *asJSON {
		out := make([]benchmarkJSON, len(rows))
		for i, b := range rows {
			out[i] = toJSON(b)
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "round %s (LoadGen %s)\nBENCHMARK\tLOADGEN MODEL\tEDGE\tDATACENTER\tSAMPLES (PERF/ALL)\tTARGET\tAUDITS\n", r.Name, r.LoadGenVersion)
	for _, b := range rows {
		cats := func(c benchmarks.Category) string {
			s, ok := b.Requires(c)
			if !ok {
				return "-"
			}
			var out []string
			for _, x := range s {
				out = append(out, string(x))
			}
			return strings.Join(out, ",")
		}
		var audits []string
		for _, t := range b.Audits {
			audits = append(audits, string(t))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", b.SubmissionName, orDash(b.Name), cats(benchmarks.Edge), cats(benchmarks.Datacenter),
			b.PerformanceSampleCount, b.DatasetSize, b.Quality, strings.Join(audits, ","))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// benchmarkJSON is a row of the table in the checker's terms.
type benchmarkJSON struct {
	Name                   string                                        `json:"name"`
	ConfName               string                                        `json:"conf_name"`
	Round                  string                                        `json:"round"`
	Demo                   bool                                          `json:"demo"`
	Task                   string                                        `json:"task"`
	Model                  string                                        `json:"model"`
	DatasetSize            int                                           `json:"dataset_size"`
	PerformanceSampleCount int                                           `json:"performance_sample_count"`
	AccuracySampleCount    int                                           `json:"accuracy_sample_count"`
	Targets                []targetJSON                                  `json:"accuracy_targets"`
	Required               map[benchmarks.Category][]benchmarks.Scenario `json:"required"`
	Optional               map[benchmarks.Category][]benchmarks.Scenario `json:"optional,omitempty"`
	LatencyConstraintNS    map[benchmarks.Scenario]int64                 `json:"latency_constraint_ns,omitempty"`
	MinQueries             map[benchmarks.Scenario]int                   `json:"min_queries,omitempty"`
	OfflineMinSPQ          int                                           `json:"offline_min_samples_per_query"`
	MinDurationMS          int64                                         `json:"min_duration_ms,omitempty"`
	Audits                 []benchmarks.Test                             `json:"audits"`
}

type targetJSON struct {
	Metric    benchmarks.Metric `json:"metric"`
	Reference float64           `json:"reference"`
	Fraction  float64           `json:"fraction"`
	Target    float64           `json:"target"`
}

func toJSON(b benchmarks.Benchmark) benchmarkJSON {
	j := benchmarkJSON{Name: b.SubmissionName, ConfName: b.Name, Round: b.Round, Demo: b.Demo, Task: b.Task, Model: b.Model,
		DatasetSize: b.DatasetSize, PerformanceSampleCount: b.PerformanceSampleCount, AccuracySampleCount: b.AccuracySamples(benchmarks.Offline),
		Required: b.Required, Optional: b.Optional, MinQueries: b.MinQueries, OfflineMinSPQ: b.OfflineMinSamplesPerQuery,
		MinDurationMS: b.MinDuration.Milliseconds(), Audits: b.Audits}
	for _, q := range b.Targets {
		j.Targets = append(j.Targets, targetJSON{q.Metric, q.Reference, q.Fraction, q.Target()})
	}
	if len(b.LatencyConstraint) > 0 {
		j.LatencyConstraintNS = map[benchmarks.Scenario]int64{}
		keys := make([]string, 0, len(b.LatencyConstraint))
		for sc := range b.LatencyConstraint {
			keys = append(keys, string(sc))
		}
		sort.Strings(keys)
		for _, sc := range keys {
			j.LatencyConstraintNS[benchmarks.Scenario(sc)] = b.LatencyConstraint[benchmarks.Scenario(sc)].Nanoseconds()
		}
	}
	return j
}
