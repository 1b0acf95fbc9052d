package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

func TestTestSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := filepath.Join(dir, "user.conf")
	require.NoError(t, os.WriteFile(user, []byte(
		"# tuning\nresnet50.Server.target_qps = 200\n*.*.qsl_rng_seed = 7\n*.Server.min_duration = 60000\n"), 0o644))
	c, err := config.Load(config.Inputs{
		Flags: []config.FlagValue{
			{Key: "benchmark", Value: "resnet50", Flag: "--benchmark"},
			{Key: "scenario", Value: "Server", Flag: "--scenario"},
			{Key: "user_conf", Value: user, Flag: "--user-conf"},
		},
		ReadConf: ReadConf,
	})
	require.NoError(t, err)
	v, ok := c.Lookup("settings.target_qps")
	require.True(t, ok)
	assert.Equal(t, config.Source{Layer: config.LayerUserConf, Where: user + ":2 (resnet50.Server.target_qps)"}, v.Source)
	s, err := TestSettings(c)
	require.NoError(t, err)
	assert.Equal(t, loadgen.Server, s.Scenario)
	assert.Equal(t, loadgen.PerformanceOnly, s.Mode)
	assert.InDelta(t, 200.0, s.ServerTargetQPS, 0)
	assert.Equal(t, 15*time.Millisecond, s.ServerTargetLatency)
	assert.InDelta(t, 0.99, s.ServerTargetLatencyPercentile, 1e-12)
	assert.Equal(t, time.Minute, s.MinDuration)
	assert.Equal(t, loadgen.DefaultTestSettings().MinQueryCount, s.MinQueryCount, "mlperf.conf sets no Server min_query_count")
	assert.Equal(t, uint64(1024), s.PerformanceSampleCountOverride)
	// user.conf may not change the rules' seeds: round v6.1's.
	assert.Equal(t, uint64(2085463073848966840), s.QSLRNGSeed)
	assert.Equal(t, uint64(16159082839903944936), s.ScheduleRNGSeed)
}

func TestServerNeedsTargetQPS(t *testing.T) {
	t.Parallel()
	c, err := config.Load(config.Inputs{Flags: []config.FlagValue{{Key: "scenario", Value: "Server", Flag: "--scenario"}}})
	require.NoError(t, err)
	_, err = TestSettings(c)
	require.NoError(t, err, "the run calibrates target_qps")
	c, err = config.Load(config.Inputs{Flags: []config.FlagValue{{Key: "scenario", Value: "Server", Flag: "--scenario"},
		{Key: config.KeyCalibrateMode, Value: config.CalibrateOff, Flag: "--calibrate off"}}})
	require.NoError(t, err)
	_, err = TestSettings(c)
	require.ErrorIs(t, err, config.ErrConfig)
	// The demo: 1024 queries at the placeholder's 1 QPS.
	assert.Contains(t, err.Error(), `Server has no target_qps of yours: settings.target_qps = 1.0 (built-in mlperf.conf v6.1 (*.Server.target_qps)) would run for at least 17m4s`)
	c, err = config.Load(config.Inputs{Flags: []config.FlagValue{{Key: "scenario", Value: "Server", Flag: "--scenario"},
		{Key: "settings.target_qps", Value: "1", Flag: "--set settings.target_qps=1"}}})
	require.NoError(t, err)
	_, err = TestSettings(c)
	require.NoError(t, err, "a rate the user chose, however slow")
}

func TestTestSettingsModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode string
		want loadgen.Mode
	}{
		{config.ModePerformance, loadgen.PerformanceOnly},
		{config.ModeAccuracy, loadgen.AccuracyOnly},
		{config.ModeSubmission, loadgen.SubmissionRun},
		{config.ModeFindPeak, loadgen.FindPeakPerformance},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			c, err := config.Load(config.Inputs{Flags: []config.FlagValue{{Key: "mode", Value: tt.mode, Flag: "--mode"}}})
			require.NoError(t, err)
			s, err := TestSettings(c)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Mode)
			assert.Equal(t, loadgen.Offline, s.Scenario)
			assert.Equal(t, uint64(1000), s.MinQueryCount)
		})
	}
}

// TestHostConfigRings: host.shared_rings and host.ring_spin reach
// host.Config (auto: the rings for every plugin but one that reports
// first tokens; on: for it too); a ring_spin of 0 means never poll,
// which host.Config spells negative (its zero is the default).
func TestHostConfigRings(t *testing.T) {
	t.Parallel()
	load := func(flags ...config.FlagValue) *config.Config {
		c, err := config.Load(config.Inputs{Flags: flags})
		require.NoError(t, err)
		return c
	}
	hc := Plugins{}.HostConfig(load())
	assert.False(t, hc.DisableSharedRing)
	assert.False(t, hc.SharedRingFirstTokens)
	assert.Equal(t, 200*time.Microsecond, hc.RingSpin)
	hc = Plugins{}.HostConfig(load(config.FlagValue{Key: "host.shared_rings", Value: "on", Flag: "--set"}))
	assert.False(t, hc.DisableSharedRing)
	assert.True(t, hc.SharedRingFirstTokens)
	hc = Plugins{}.HostConfig(load(config.FlagValue{Key: "host.shared_rings", Value: "off", Flag: "--set"},
		config.FlagValue{Key: "host.ring_spin", Value: "0", Flag: "--set"}))
	assert.True(t, hc.DisableSharedRing)
	assert.Negative(t, hc.RingSpin)
}

// TestListDescribesTheEmbeddedPlugin: the embedded plugin has no manifest;
// `plugins list` describes it by its own Info (here the host's WAT echo
// guest standing in for the onnx module).
func TestListDescribesTheEmbeddedPlugin(t *testing.T) {
	t.Parallel()
	module, err := os.ReadFile("../../host/testdata/wasm/echo.wasm")
	require.NoError(t, err)
	c, err := config.Load(config.Inputs{})
	require.NoError(t, err)
	p := Plugins{Dirs: []string{t.TempDir()}, EmbeddedName: "watecho", Embedded: func() ([]byte, error) { return module, nil }}
	entries, problems := p.List(t.Context(), c)
	require.NoError(t, problems)
	require.Len(t, entries, 1)
	e := entries[0]
	assert.Equal(t, "watecho", e.Name)
	assert.Equal(t, "0.1.0", e.Version)
	assert.Equal(t, 1, e.ABIMajor)
	assert.Equal(t, "(embedded)", e.Path)
	assert.Contains(t, e.Description, "built into this binary")

	p.Embedded = func() ([]byte, error) { return []byte("\x00asm junk"), nil }
	entries, _ = p.List(t.Context(), c)
	require.Len(t, entries, 1)
	assert.Contains(t, entries[0].Description, "cannot open it")
}

// TestEveryOfficialBenchmark: the settings each round's mlperf.conf gives
// every benchmark and scenario make valid LoadGen TestSettings.
func TestEveryOfficialBenchmark(t *testing.T) {
	t.Parallel()
	for _, round := range benchmarks.RoundNames() {
		for _, b := range benchmarks.MustRound(round).All() {
			for _, sc := range benchmarks.Scenarios() {
				c, err := config.Load(config.Inputs{Flags: []config.FlagValue{
					{Key: config.KeyRound, Value: round, Flag: "--round"},
					{Key: config.KeyBenchmark, Value: b.SubmissionName, Flag: "--benchmark"},
					{Key: config.KeyScenario, Value: string(sc), Flag: "--scenario"},
					{Key: "settings.target_qps", Value: "100", Flag: "--set"},
				}})
				require.NoError(t, err, "%s %s %s", round, b.SubmissionName, sc)
				s, err := TestSettings(c)
				require.NoError(t, err, "%s %s %s", round, b.SubmissionName, sc)
				want := 10 * time.Minute // *.SCENARIO.min_duration = 600000 in every round
				if b.Demo {
					want = time.Second
				}
				assert.Equal(t, want, s.MinDuration, "%s %s %s", round, b.SubmissionName, sc)
			}
		}
	}
	c, err := config.Load(config.Inputs{Flags: []config.FlagValue{{Key: config.KeyBenchmark, Value: "gpt-oss-120b", Flag: "--benchmark"}}})
	require.NoError(t, err)
	s, err := TestSettings(c)
	require.NoError(t, err)
	assert.Equal(t, uint64(4395), s.AccuracySampleCountOverride, "mlperf.conf's gpt-oss-120b.*.accuracy_sample_count_override")
}
