package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
	"github.com/mlperf-host/mlperf-host/internal/report"
)

func (a *app) cmdReport(ctx context.Context, args []string) error {
	fs := a.newFlagSet("report", "[--html FILE] DIR",
		"Write a self-contained HTML page for the run whose logs are in DIR: settings, results and,\nwhen the run was traced (run --trace), latency histogram, latency over time and throughput.")
	out := fs.String("html", "", "output `FILE` (default DIR/report.html)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return exitcode.New(exitcode.Usage, errors.New("report: want the run's log directory"), "mlperf-host report mlperf-results")
	}
	dir := pos[0]
	f, err := os.Open(filepath.Join(dir, "mlperf_log_detail.txt"))
	if err != nil {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("report: %w", err), "pass the --out directory of a run")
	}
	detail, err := mllog.Parse(f)
	f.Close()
	if err != nil {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("report: %s: %w", f.Name(), err), "")
	}
	d := report.Data{Detail: detail}
	sc, _ := detail.String("effective_scenario")
	mode, _ := detail.String("effective_test_mode")
	d.Title = fmt.Sprintf("mlperf-host %s %s — %s", sc, mode, dir)
	if tf, err := os.Open(filepath.Join(dir, "mlperf_log_trace.json")); err == nil {
		d.Samples, err = report.ReadTrace(tf)
		tf.Close()
		if err != nil {
			return exitcode.New(exitcode.Dataset, fmt.Errorf("report: %s: %w", tf.Name(), err), "")
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "accuracy.txt")); err == nil {
		d.Accuracy = strings.TrimSpace(string(b))
	}
	path := *out
	if path == "" {
		path = filepath.Join(dir, "report.html")
	}
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.Write(w, d); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s (%d traced samples)\n", path, len(d.Samples))
	return nil
}
