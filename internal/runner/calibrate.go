package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/bridge"
	"github.com/mlperf-host/mlperf-host/internal/calibrate"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// CalibrationKey is the setting (without "settings.") a calibration of a
// run in scenario sc chooses: the scenario's expected value.
func CalibrationKey(sc benchmarks.Scenario) string {
	if sc == benchmarks.SingleStream || sc == benchmarks.MultiStream {
		return calibrate.KeyTargetLatency
	}
	return calibrate.KeyTargetQPS
}

// NeedsCalibration reports whether a run of c with settings s calibrates
// before its timed run: calibrate.mode is auto, the run measures
// performance, and the scenario's expected value is neither the user's
// (user.conf, config file, environment, flag) nor calibrated already.
func NeedsCalibration(c *config.Config, s loadgen.TestSettings) bool {
	if c.Calibrate.Mode != config.CalibrateAuto || (s.Mode != loadgen.PerformanceOnly && s.Mode != loadgen.SubmissionRun) {
		return false
	}
	key := config.PrefixSettings + CalibrationKey(c.Scenario)
	v, _ := c.Lookup(key)
	return !c.SetByUser(key) && v.Source.Layer != config.LayerCalibration
}

// Calibrated returns c with the value ch chose, set by the calibration
// layer (whose source says what it was measured from).
func Calibrated(c *config.Config, ch calibrate.Choice) *config.Config {
	return c.With(config.Source{Layer: config.LayerCalibration, Where: ch.Probe}, map[string]string{ch.Key: ch.Value})
}

// CalibrationSettings are c's calibrate.* keys as package calibrate
// takes them, with the run's settings s that bound a chosen value.
func CalibrationSettings(c *config.Config, s loadgen.TestSettings) calibrate.Settings {
	spq := uint64(1)
	if s.Scenario == loadgen.MultiStream {
		spq = s.MultiStreamSamplesPerQuery
	}
	return calibrate.Settings{ProbeTime: c.Calibrate.ProbeTime, Margin: c.Calibrate.Margin, ServerSteps: c.Calibrate.ServerSteps,
		MinDuration: s.MinDuration, SamplesPerQuery: spq, MaxSamples: c.Calibrate.MaxSamples}
}

// calibrateRun probes the loaded plugin b through qsl in the run's
// scenario and chooses its expected value. The probes' logs go to
// subdirectories of dir, each removed after its probe, and dir too.
func calibrateRun(ctx context.Context, c *config.Config, b host.Backend, qsl loadgen.QSL, s loadgen.TestSettings, dir string) (calibrate.Choice, error) {
	defer os.Remove(dir) // once empty: each probe removes its own logs
	p := &Probe{NewSUT: func() ProbeSUT { return bridge.NewSUT(b, b.Info().Name) }, QSL: qsl, Settings: s, Dir: dir}
	// Interactive is LoadGen's Server under its own bounds.
	ch, err := calibrate.Choose(ctx, string(c.LoadGenScenario()), p, CalibrationSettings(c, s))
	ch.Scenario = string(c.Scenario)
	if err == nil || ctx.Err() != nil {
		return ch, err
	}
	if _, coded := errors.AsType[*exitcode.Error](err); coded {
		return ch, err
	}
	key := config.PrefixSettings + CalibrationKey(c.Scenario)
	return ch, exitcode.New(exitcode.Config, fmt.Errorf("%w: %w", config.ErrConfig, err),
		fmt.Sprintf("set the value yourself: %s=N (in user.conf *.%s.%s = N), or %s=%s", key, c.Scenario, CalibrationKey(c.Scenario),
			config.KeyCalibrateMode, config.CalibrateOff))
}

// ProbeSUT is the system under test a probe runs, with its failures.
type ProbeSUT interface {
	loadgen.SUT
	Err() error
}

// Probe is the calibrate.Prober of a run: each probe is a short LoadGen
// test of Settings, with the minimum duration and query count a probe
// needs, against a fresh NewSUT.
type Probe struct {
	NewSUT   func() ProbeSUT
	QSL      loadgen.QSL
	Settings loadgen.TestSettings
	// Dir holds each probe's logs while it runs.
	Dir string
	n   int
}

var _ calibrate.Prober = (*Probe)(nil)

// Count runs count queries (Offline and Server: one Offline query of
// count samples) with no minimum duration.
func (p *Probe) Count(ctx context.Context, count uint64) (calibrate.Measurement, error) {
	s := p.probeSettings()
	if s.Scenario == loadgen.Server {
		s.Scenario = loadgen.Offline
	}
	s.MinDuration, s.MinQueryCount, s.MaxQueryCount = 0, count, 0
	return p.run(ctx, s)
}

// Rate runs the Server scenario at qps for d, at most 2d. With token
// latencies it runs until it has issued the queries an early stopping
// estimate at the bounds' percentile needs (662 for the 99th), at most
// tokenProbeStretch × d: a slower rate gets fewer, and the search judges
// that probe at the plain percentile.
func (p *Probe) Rate(ctx context.Context, qps float64, d time.Duration) (calibrate.Measurement, error) {
	s := p.probeSettings()
	s.ServerTargetQPS, s.MinDuration, s.MinQueryCount, s.MaxQueryCount = qps, d, 1, 0
	s.MaxDuration = 2 * d
	if s.UseTokenLatencies {
		s.MinQueryCount = loadgen.EarlyStoppingMinQueries(s.ServerTargetLatencyPercentile)
		s.MaxDuration = tokenProbeStretch * d
	}
	return p.run(ctx, s)
}

// tokenProbeStretch bounds how much longer than the probe time a Server
// probe with token latencies runs for its early stopping estimate: ten
// probes of at most 10 s each with the default 1 s, beside an LLM run's
// 600 s minimum.
const tokenProbeStretch = 10

// probeSettings are the run's settings as every probe starts from them:
// performance only, no duration limit of the run's.
func (p *Probe) probeSettings() loadgen.TestSettings {
	s := p.Settings
	s.Mode, s.MaxDuration = loadgen.PerformanceOnly, 0
	return s
}

func (p *Probe) run(ctx context.Context, s loadgen.TestSettings) (calibrate.Measurement, error) {
	p.n++
	dir := filepath.Join(p.Dir, "probe-"+strconv.Itoa(p.n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return calibrate.Measurement{}, fmt.Errorf("calibration probe: %w", err)
	}
	defer os.RemoveAll(dir)
	sut := p.NewSUT()
	r, err := loadgen.NewRun(sut, p.QSL, s, loadgen.LogSettings{OutDir: dir})
	if err != nil {
		return calibrate.Measurement{}, fmt.Errorf("calibration probe: %w", err)
	}
	res, err := r.Start(ctx)
	if err != nil {
		return calibrate.Measurement{}, fmt.Errorf("calibration probe: %w", err)
	}
	if err := sut.Err(); err != nil {
		return calibrate.Measurement{}, exitcode.New(exitcode.PluginFailed, fmt.Errorf("calibration probe: plugin %s: %w", sut.Name(), err),
			"the plugin failed samples: its log lines above say why")
	}
	return measurement(res.Performance)
}

// measurement is what a probe's result says about the system.
func measurement(p *loadgen.PerformanceResult) (calibrate.Measurement, error) {
	if p == nil {
		return calibrate.Measurement{}, errors.New("calibration probe: no performance result")
	}
	m := calibrate.Measurement{Samples: p.SamplesCompleted, Queries: p.QueriesIssued, Duration: p.Duration,
		QueryLatency: p.Latency.Mean, TargetQPS: p.TargetQPS, LatencyMet: !p.HasPerfConstraints || p.PerfConstraintsMet,
		PercentileLatency: p.TargetPercentileLatency, LatencyBound: p.TargetLatency, LatencyPercentile: p.TargetLatencyPercentile}
	if p.QueryLatency != nil {
		m.QueryLatency = p.QueryLatency.Mean
	}
	for _, b := range []struct {
		name string
		b    *loadgen.TokenBound
	}{{"TTFT", p.FirstTokenBound}, {"TPOT", p.TimePerOutputTokenBound}} {
		if b.b != nil {
			m.Tokens = append(m.Tokens, calibrate.TokenLatency{Name: b.name, Bound: b.b.Bound, Percentile: b.b.Latency,
				EarlyStopping: b.b.EarlyStopping, EarlyStoppingQueries: b.b.EarlyStoppingQueries})
		}
	}
	return m, nil
}
