package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/report"
)

// compareFile is where a comparison goes without --html.
const compareFile = "compare.html"

func (a *app) cmdReport(ctx context.Context, args []string) error {
	fs := a.newFlagSet("report", "[--html FILE] DIR [DIR...]",
		"Write a self-contained HTML page for the run whose logs are in DIR: its result, key metrics and,\n"+
			"when the run was traced (run --trace), the charts that fit its scenario. With several DIRs,\n"+
			"compare the runs side by side: key metrics with ratios against the first run, the result\n"+
			"metric and the latency percentiles of every run in one chart, then each run's charts.")
	out := fs.String("html", "", "output `FILE` (default DIR/report.html for one run, ./"+compareFile+" for several)")
	roundName := fs.String("round", "", "the `ROUND` whose rules the page reads: the result metric, token latency limits, "+
		"accuracy metrics (default: the newest round that has the run's benchmark)")
	dirs, err := parse(fs, args)
	if err != nil {
		return err
	}
	var round *benchmarks.Round
	if *roundName != "" {
		if round, err = benchmarks.LookupRound(*roundName); err != nil {
			return exitcode.New(exitcode.Usage, fmt.Errorf("report: %w", err), "")
		}
	}
	if len(dirs) == 0 {
		return exitcode.New(exitcode.Usage, errors.New("report: want the log directory of a run, or of several to compare"),
			"mlperf-host report mlperf-results, or mlperf-host report RUN1 RUN2")
	}
	runs := make([]*report.Run, len(dirs))
	abs := make([]string, len(dirs))
	for i, dir := range dirs {
		if runs[i], err = report.Load(dir, round); err != nil {
			return exitcode.New(exitcode.Dataset, fmt.Errorf("report: %w", err), "pass the --out directory of a run")
		}
		if abs[i], err = filepath.Abs(dir); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	// The page names each run by its directory's base name (never a path
	// of this machine), longer where two would look alike.
	report.UniqueNames(runs, abs)
	path := *out
	if path == "" {
		path = filepath.Join(dirs[0], "report.html")
		if len(runs) > 1 {
			path = compareFile
		}
	}
	w, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if len(runs) == 1 {
		err = report.Write(w, runs[0])
	} else {
		var warnings []string
		warnings, err = report.WriteComparison(w, runs)
		for _, warn := range warnings {
			fmt.Fprintf(a.stderr, "mlperf-host: warning: %s\n", warn)
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path) // never a torn page under its name
		if errors.Is(err, report.ErrNotComparable) {
			return exitcode.New(exitcode.Usage, fmt.Errorf("report: %w", err), "")
		}
		return fmt.Errorf("report: %w", err)
	}
	if len(runs) == 1 {
		fmt.Fprintf(a.stdout, "wrote %s (%s, %d traced samples)\n", path, runs[0].Title(), len(runs[0].Samples))
	} else {
		fmt.Fprintf(a.stdout, "wrote %s (%d runs compared)\n", path, len(runs))
	}
	return nil
}
