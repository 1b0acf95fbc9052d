package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/calibrate"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/progress"
	"github.com/mlperf-host/mlperf-host/internal/runner"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

func (a *app) cmdRun(ctx context.Context, args []string) error {
	fs := a.newFlagSet("run", "[flags]", "Run the configured benchmark against a plugin and write the MLPerf logs to --out.")
	var cf configFlags
	cf.register(fs)
	trace := fs.Bool("trace", false, "also write mlperf_log_trace.json (for `mlperf-host report`)")
	audit := fs.String("audit-config", "", "an official compliance test's audit.config `FILE`, which LoadGen applies over the settings")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("run: unexpected argument %q", pos[0]), "run takes flags only: `mlperf-host run -h`")
	}
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	_, err = a.runOnce(ctx, runner.Spec{Config: c, Trace: *trace, AuditConfig: *audit})
	return err
}

// runOnce makes one run, prints its results and turns its outcome into the
// command's error: interrupted, plugin failures, an invalid result or an
// accuracy below target.
func (a *app) runOnce(ctx context.Context, sp runner.Spec) (*runner.Outcome, error) {
	c := sp.Config
	sp.Plugins = a.plugins()
	sp.Watch = a.watch(c)
	sp.Stop = a.stopNow
	sp.Calibrated = func(ch calibrate.Choice) { fmt.Fprintf(a.stderr, "mlperf-host: calibrated %s\n", ch) }
	out := c.Out
	if sp.OutDir != "" {
		out = sp.OutDir
	}
	fmt.Fprintf(a.stderr, "mlperf-host: %s %s (%s) with %s -> %s\n", c.Benchmark.SubmissionName, c.Scenario, c.Mode, runner.SUTLabel(c), out)
	start := time.Now()
	o, err := runner.Run(ctx, sp)
	if o != nil {
		a.printOutcome(c, o, time.Since(start))
		if o.CloseErr != nil {
			fmt.Fprintf(a.stderr, "mlperf-host: warning: %v; the result above was measured before the plugin closed and stands\n", o.CloseErr)
		}
	}
	if ctx.Err() != nil {
		kept := "nothing was written"
		if o != nil && len(o.Files) > 0 {
			kept = fmt.Sprintf("kept %s in %s (logs of the interrupted run: not a valid result)", strings.Join(o.Files, ", "), o.OutDir)
		}
		return o, exitcode.New(exitcode.Interrupted, fmt.Errorf("interrupted: the plugin was closed and the logs flushed; %s", kept), "")
	}
	if err != nil {
		return o, err
	}
	if p := o.Result.Performance; p != nil && !o.Result.Valid {
		reasons := strings.Join(p.InvalidReasons, "; ")
		if reasons == "" {
			reasons = strings.Join(o.Result.Errors, "; ")
		}
		return o, exitcode.New(exitcode.InvalidResult, fmt.Errorf("the result is INVALID: %s", reasons),
			fmt.Sprintf("see %s; tune target_qps / target_latency in user.conf", filepath.Join(o.OutDir, "mlperf_log_summary.txt")))
	}
	if acc := o.Accuracy; acc != nil && !acc.Pass {
		return o, exitcode.New(exitcode.AccuracyBelowTarget,
			fmt.Errorf("accuracy %.3f%% does not reach the target %s", acc.Accuracy, c.Benchmark.Quality), "")
	}
	if o.Score != nil && !o.ScorePass {
		return o, exitcode.New(exitcode.AccuracyBelowTarget,
			fmt.Errorf("%s does not reach the target %s", o.Score.Text(), strings.Join(o.ScoreFailed, ", ")), "")
	}
	return o, nil
}

// watch returns the progress bar's starter, or nil when it stays quiet.
func (a *app) watch(c *config.Config) func(context.Context, *loadgen.Run) func() {
	if c.Progress == "never" || (c.Progress == "auto" && !a.terminal) {
		return nil
	}
	return func(ctx context.Context, r *loadgen.Run) func() {
		label := fmt.Sprintf("%s %s", c.Scenario, c.Mode)
		bar := progress.New(a.stderr, label, func() progress.Counts {
			p := r.Progress()
			return progress.Counts{Issued: p.SamplesIssued, Completed: p.SamplesCompleted, Elapsed: p.Elapsed, Expected: p.MinDuration}
		}, 0)
		bar.Start(ctx)
		return bar.Stop
	}
}

// pluginShape describes how the plugin runs: transport, instances (a
// WASM pool), largest batch and calls in flight per instance.
func pluginShape(i host.Info) string {
	s := string(i.Transport)
	if i.Instances > 1 {
		s += fmt.Sprintf(", %d instances", i.Instances)
	}
	if i.MaxBatch > 0 {
		s += fmt.Sprintf(", max batch %d", i.MaxBatch)
	} else {
		s += ", any batch"
	}
	s += fmt.Sprintf(", %d in flight", i.MaxInFlight)
	if i.Instances > 1 {
		s += " each"
	}
	return s
}

// printOutcome prints the final results table.
func (a *app) printOutcome(c *config.Config, o *runner.Outcome, wall time.Duration) {
	r := o.Result
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, args...)) }
	row("benchmark", "%s (%s, round %s)", c.Benchmark.SubmissionName, c.Benchmark.Model, c.Round.Name)
	if c.Scenario == benchmarks.Interactive {
		row("scenario / mode", "Interactive (LoadGen's %s) / %s", r.Scenario, r.Mode)
	} else {
		row("scenario / mode", "%s / %s", r.Scenario, r.Mode)
	}
	row("plugin", "%s %s (%s)", o.Plugin.Name, o.Plugin.Version, pluginShape(o.Plugin))
	poolRows(row, o.Pool)
	poolRows(row, o.Members)
	if p := r.Performance; p != nil {
		validity := "VALID"
		if !r.Valid {
			validity = "INVALID"
		}
		row("result", "%s", validity)
		row(p.MetricName, "%s", metric(p))
		if m, ok := tokenResult(c, o); ok {
			row("tokens per second", "%.2f  (the round's result, %s)", m.Value, m.Key)
		}
		row("samples", "%d completed in %d queries over %v", p.SamplesCompleted, p.QueriesIssued, p.Duration.Round(time.Millisecond))
		if p.Latency.Count > 0 {
			row("latency", "min %v  mean %v  p50 %v  p90 %v  p99 %v  max %v", p.Latency.Min, p.Latency.Mean,
				p.Latency.At(0.5), p.Latency.At(0.9), p.Latency.At(0.99), p.Latency.Max)
		}
		if s := tokenLatencies(c, p); s != "" {
			row("token latency", "%s", s)
		}
		row("constraints", "min duration %s  min queries %s  latency %s", yes(p.MinDurationMet), yes(p.MinQueriesMet),
			yes(!p.HasPerfConstraints || p.PerfConstraintsMet))
	}
	if acc := o.Accuracy; acc != nil {
		verdict := "PASS"
		if !acc.Pass {
			verdict = "FAIL"
		}
		row("accuracy", "%s  (target %s: %s)", acc.Text(), c.Benchmark.Quality, verdict)
	} else if o.Score != nil {
		verdict := "PASS"
		if !o.ScorePass {
			verdict = "FAIL"
		}
		row("accuracy", "%s  (targets: %s)", o.Score.Text(), verdict)
	} else if r.AccuracySamples > 0 {
		row("accuracy log", "%d responses", r.AccuracySamples)
		if o.Unscored != "" {
			row("accuracy", "not scored: %s", o.Unscored)
		}
	}
	if o.SUT.Failed > 0 {
		row("failed samples", "%d", o.SUT.Failed)
	}
	row("logs", "%s (%s)", o.OutDir, strings.Join(o.Files, ", "))
	row("wall time", "%v", wall.Round(time.Millisecond))
	tw.Flush()
}

func metric(p *loadgen.PerformanceResult) string {
	if strings.Contains(strings.ToLower(p.MetricName), "latency") {
		return time.Duration(p.Metric).String()
	}
	return fmt.Sprintf("%.2f", p.Metric)
}

func yes(b bool) string {
	if b {
		return "met"
	}
	return "NOT met"
}
