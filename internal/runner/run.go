package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/bench"
	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/bridge"
	"github.com/mlperf-host/mlperf-host/internal/calibrate"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// Spec is one run to make.
type Spec struct {
	Config  *config.Config
	Plugins Plugins
	// OutDir overrides Config.Out.
	OutDir string
	// AuditConfig is the path of an audit.config (a compliance test's, as
	// the official repository publishes them), which LoadGen applies over
	// the settings; "" for none.
	AuditConfig string
	// Watch, when set, is called with the run once it starts and returns
	// a function that stops watching (the progress bar).
	Watch func(ctx context.Context, r *loadgen.Run) (stop func())
	// Trace writes mlperf_log_trace.json as well.
	Trace bool
	// Console receives LoadGen's console lines; nil drops them.
	Console io.Writer
	// Stop, when closed, ends the run now (a second Ctrl-C): the plugin is
	// killed, the samples in flight fail at once, and the logs of what
	// happened are written.
	Stop <-chan struct{}
	// Calibrated, when set, is told the value a calibration chose, before
	// the timed run starts.
	Calibrated func(calibrate.Choice)
}

// Outcome is what a run produced.
type Outcome struct {
	Result loadgen.Result
	OutDir string
	// Files are the files the run wrote in OutDir, sorted.
	Files  []string
	Plugin host.Info
	SUT    bridge.Stats
	// Pool is what each member of a pool did (its last loadable set);
	// nil for a run of one plugin.
	Pool *host.PoolStats
	// Members is what each member of the plugin's own did in the last
	// performance pass (a serving engine's endpoints: ABI v1.4
	// Members); nil when it reports none.
	Members *host.PoolStats
	// CloseErr is the plugin's failure while closing after the test, for
	// a warning: the result was measured before and stands, and the exit
	// code follows it.
	CloseErr error
	// Accuracy is the score of an accuracy run (AccuracyOnly or
	// SubmissionRun) of a top-1 benchmark; nil otherwise.
	Accuracy *resnet.Result
	// Score is the score of an accuracy run of a benchmark with another
	// scorer, ScorePass whether it meets every quality target of the
	// scenario that the scorer measures (ScoreFailed the ones it misses);
	// Unscored says why an accuracy run was not scored (the scorer's
	// inputs are missing).
	Score       accuracy.Score
	ScorePass   bool
	ScoreFailed []string
	Unscored    string
	// Calibration is the value the run's calibration chose (see
	// NeedsCalibration); nil when it did not calibrate.
	Calibration *calibrate.Choice
}

// AccuracyTextFile is the accuracy result next to the accuracy log.
const AccuracyTextFile = "accuracy.txt"

// Run makes one LoadGen test of the configured plugin on the configured
// data set and writes its logs.
//
// # Errors
//
// Configuration, data set and plugin errors before the test; after it, a
// *host.PluginError when the plugin failed during the test, an error
// counting failed samples, or ctx's error when the run was interrupted —
// the Outcome then holds what was written.
func Run(ctx context.Context, sp Spec) (*Outcome, error) {
	c := sp.Config
	settings, err := TestSettings(c)
	if err != nil {
		return nil, err
	}
	var opts []loadgen.Option
	if sp.AuditConfig != "" {
		audit, err := loadgen.LoadConfig(sp.AuditConfig)
		if err != nil {
			return nil, exitcode.New(exitcode.Config, fmt.Errorf("%w: audit.config %s: %w", config.ErrConfig, sp.AuditConfig, err),
				"pass an audit.config of the official compliance tests (compliance/TEST0N/...)")
		}
		// The reference SUTs read audit.config for their own model
		// before StartTest (settings.FromConfig(audit_config, model,
		// scenario)), as TEST04's README asks of every SUT: its model's
		// lines apply (TEST04's wan-2.2-t2v-a14b and stable-diffusion-xl
		// min_query_count), and StartTest applies it again for "*".
		if settings, err = audit.Apply(settings, c.Benchmark.Name, settings.Scenario, loadgen.AuditConf); err != nil {
			return nil, exitcode.New(exitcode.Config, fmt.Errorf("%w: audit.config %s: %w", config.ErrConfig, sp.AuditConfig, err), "")
		}
		opts = append(opts, loadgen.WithAuditConfig(audit))
	}
	if m := placementMessage(c); m != "" {
		opts = append(opts, loadgen.WithDetailMessages(m))
	}
	if m, err := networkMessage(c); err != nil {
		return nil, err
	} else if m != "" {
		opts = append(opts, loadgen.WithDetailMessages(m))
	}
	d, err := OpenDataset(c)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := checkSampleCount(c, d.Len()); err != nil {
		return nil, err
	}
	if err := verifyDataset(d); err != nil {
		return nil, err
	}
	path, modelBytes, err := Model(c)
	if err != nil {
		return nil, err
	}
	out := c.Out
	if sp.OutDir != "" {
		out = sp.OutDir
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	unlock, err := lockOutDir(out, fmt.Sprintf("%s %s %s with %s", c.Benchmark.Name, c.Scenario, c.Mode, SUTLabel(c)))
	if err != nil {
		return nil, err
	}
	defer unlock()
	b, err := sp.Plugins.Open(ctx, c)
	if err != nil {
		return nil, err
	}
	defer func() { _ = closeBackend(ctx, b, sp.Stop) }() // at once when closed below
	endWatch := watchStop(b, sp.Stop)
	defer endWatch()
	if err := checkModelFile(path, b.Info()); err != nil {
		return nil, err
	}
	if err := CheckPluginOptions(b.Info(), c); err != nil {
		return nil, err
	}
	if err := b.Load(ctx, host.Model{Path: path, Bytes: modelBytes, Options: c.PluginOptions(OptionsKey(c, b.Info())),
		Run: PluginRun(c, settings, d.Len()), Inputs: bridge.Inputs(d)}); err != nil {
		return nil, err
	}
	qsl := bridge.NewQSL(b, d, c.Benchmark.PerformanceSampleCount)
	qsl.SetBenchmark(c.Benchmark.SubmissionName)
	var cal *calibrate.Choice
	if NeedsCalibration(c, settings) {
		ch, err := calibrateRun(ctx, c, b, qsl, settings, filepath.Join(out, "calibration"))
		if err != nil {
			return nil, err
		}
		cal = &ch
		if settings, err = TestSettings(Calibrated(c, ch)); err != nil {
			return nil, err
		}
		opts = append(opts, loadgen.WithDetailMessages("mlperf-host calibrated "+ch.String()))
		if sp.Calibrated != nil {
			sp.Calibrated(ch)
		}
	}
	sut := bridge.NewSUT(b, b.Info().Name)
	sut.SetReportContext(ctx)
	run, err := loadgen.NewRun(sut, qsl, settings, loadgen.LogSettings{OutDir: out, EnableTrace: sp.Trace, Console: sp.Console}, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", config.ErrConfig, err)
	}
	stop := func() {}
	if sp.Watch != nil {
		stop = sp.Watch(ctx, run)
	}
	res, runErr := run.Start(ctx)
	stop()
	o := &Outcome{Result: res, OutDir: out, Plugin: b.Info(), SUT: sut.Stats(), Pool: poolStats(b), Members: sut.Members(), Calibration: cal}
	failed, closeErr := closePlugin(ctx, b, sp.Stop)
	o.CloseErr = closeErr
	o.Files = listFiles(out)
	// A plugin that died is the cause of whatever the LoadGen then ran
	// into (a failed unload, say): report the plugin's own error.
	if failed != nil {
		return o, failed
	}
	aborted := errors.Is(runErr, loadgen.ErrAborted)
	if runErr != nil && !aborted {
		return o, runErr
	}
	if err := sut.Err(); err != nil {
		return o, exitcode.New(exitcode.PluginFailed, fmt.Errorf("plugin %s: %w", b.Info().Name, err),
			"the plugin failed samples: its log lines above say why")
	}
	if aborted {
		return o, exitcode.New(exitcode.PluginFailed, fmt.Errorf("plugin %s: %w", b.Info().Name, runErr),
			"the plugin's log lines above say why")
	}
	if (res.Mode == loadgen.AccuracyOnly || res.Mode == loadgen.SubmissionRun) && sp.AuditConfig == "" {
		if err := o.scoreAccuracy(c, d); err != nil {
			return o, err
		}
		if err := checkPoolCoverage(o.Pool); err != nil {
			return o, err
		}
	}
	return o, nil
}

// scoreAccuracy scores an accuracy run: with the data set's labels
// (top-1), or with the benchmark's scorer.
func (o *Outcome) scoreAccuracy(c *config.Config, d dataset.Dataset) error {
	if sc, ok, _ := bench.LookupScorer("", c.Benchmark.Name); ok {
		return o.scoreWithScorer(c, d, sc)
	}
	if c.Benchmark.Quality.Metric != benchmarks.Top1 {
		return nil
	}
	res, err := ScoreAccuracy(c, filepath.Join(o.OutDir, "mlperf_log_accuracy.json"))
	if err != nil {
		return err
	}
	o.Accuracy = &res
	return o.writeAccuracyText(res.Text())
}

func listFiles(dir string) []string {
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		if !e.IsDir() && e.Name() != LockFile {
			out = append(out, e.Name())
		}
	}
	return out
}
