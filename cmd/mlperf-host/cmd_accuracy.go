package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/runner"
)

func (a *app) cmdAccuracy(ctx context.Context, args []string) error {
	fs := a.newFlagSet("accuracy", "[flags] [LOG]",
		"Score an mlperf_log_accuracy.json (default OUT/mlperf_log_accuracy.json) against the\nbenchmark's quality target, with the labels of the configured data set.")
	var cf configFlags
	cf.register(fs)
	write := fs.String("write", "", "also write the result line to `FILE` (accuracy.txt)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	log := filepath.Join(c.Out, "mlperf_log_accuracy.json")
	switch len(pos) {
	case 0:
	case 1:
		log = pos[0]
	default:
		return exitcode.New(exitcode.Usage, fmt.Errorf("accuracy: want at most one LOG, got %d arguments", len(pos)), "")
	}
	res, err := runner.ScoreAccuracy(c, log)
	if err != nil {
		return err
	}
	if *write != "" {
		if err := os.WriteFile(*write, []byte(res.Text()+"\n"), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", *write, err)
		}
	}
	return a.printAccuracy(c.Benchmark.Quality.String(), res)
}

// printAccuracy prints a result and returns AccuracyBelowTarget when it
// fails.
func (a *app) printAccuracy(target string, res accuracy.Result) error {
	verdict := "PASS"
	if !res.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(a.stdout, "%s\ntarget %s: %s\n", res.Text(), target, verdict)
	if res.Duplicates > 0 {
		fmt.Fprintf(a.stdout, "(%d duplicate entries not scored again)\n", res.Duplicates)
	}
	switch {
	case !res.Complete:
		return exitcode.New(exitcode.AccuracyBelowTarget,
			fmt.Errorf("accuracy log covers %d of the data set's %d samples", res.Total, res.DatasetSize),
			"score the log of an accuracy run (--mode accuracy) over the whole data set")
	case !res.Pass:
		return exitcode.New(exitcode.AccuracyBelowTarget,
			fmt.Errorf("accuracy %.3f%% is below the target %.4f%%", res.Accuracy, res.Target), "")
	}
	return nil
}
