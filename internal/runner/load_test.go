package runner

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

func TestPluginRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		flags    []string
		want     func(t *testing.T, s host.TestSettings)
	}{
		{scenario: "SingleStream", flags: []string{"settings.target_latency", "5"}, want: func(t *testing.T, s host.TestSettings) {
			assert.Equal(t, uint64(1), s.SamplesPerQuery)
			assert.InDelta(t, 0.9, s.TargetLatencyPercentile, 1e-9)
		}},
		{scenario: "MultiStream", want: func(t *testing.T, s host.TestSettings) {
			assert.Equal(t, uint64(8), s.SamplesPerQuery)
			assert.InDelta(t, 0.99, s.TargetLatencyPercentile, 1e-9)
		}},
		{scenario: "Server", flags: []string{"settings.target_qps", "1234", "settings.target_latency", "15"}, want: func(t *testing.T, s host.TestSettings) {
			assert.InDelta(t, 1234.0, s.TargetQPS, 1e-9)
			assert.Equal(t, 15*time.Millisecond, s.TargetLatency)
			assert.Equal(t, uint64(1), s.SamplesPerQuery)
		}},
		{scenario: "Offline", flags: []string{"settings.target_qps", "500"}, want: func(t *testing.T, s host.TestSettings) {
			assert.InDelta(t, 500.0, s.TargetQPS, 1e-9)
			assert.Zero(t, s.SamplesPerQuery)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			c := load(t, append([]string{"scenario", tt.scenario, "mode", "accuracy", "settings.performance_sample_count_override", "100"}, tt.flags...)...)
			s, err := TestSettings(c)
			require.NoError(t, err)
			r := PluginRun(c, s, 500)
			assert.Equal(t, c.Benchmark.Name, r.Benchmark)
			assert.Equal(t, tt.scenario, r.Scenario)
			assert.Equal(t, "AccuracyOnly", r.Mode)
			assert.Equal(t, uint64(100), r.Settings.PerformanceSampleCount)
			assert.Equal(t, uint64(500), r.Settings.TotalSampleCount)
			tt.want(t, r.Settings)
		})
	}
}

// TestRunLoadsWithTheRunAndScenarioOptions checks what the plugin is told
// at Load: the run, and the options of the run's scenario.
func TestRunLoadsWithTheRunAndScenarioOptions(t *testing.T) {
	t.Parallel()
	b, p := oracle(t, nil)
	c := load(t, "plugin", "oracle", "scenario", "Server", "out", t.TempDir(), "settings.min_duration", "50", "settings.min_query_count", "64",
		"settings.target_qps", "2000", "options.oracle.batch", "1", "options.oracle.Server.batch", "64", "options.oracle.Offline.batch", "2048")
	_, err := Run(context.Background(), Spec{Config: c, Plugins: p})
	require.NoError(t, err)
	m := b.Model()
	assert.Equal(t, map[string]string{"batch": "64"}, m.Options)
	require.NotNil(t, m.Run)
	assert.Equal(t, "Server", m.Run.Scenario)
	assert.Equal(t, "PerformanceOnly", m.Run.Mode)
	assert.InDelta(t, 2000.0, m.Run.Settings.TargetQPS, 1e-9)
}

func TestRunRejectsOptionsOutsideTheSchema(t *testing.T) {
	t.Parallel()
	b := hosttest.New(host.Info{Name: "oracle", Options: []host.OptionSpec{
		{Name: "max_batch", Type: abi.OptionUint}, {Name: "precision", Type: abi.OptionEnum, Allowed: []string{"fp16", "int8"}}}})
	p := Plugins{OpenFunc: func(context.Context, *config.Config) (host.Backend, error) { return b, nil }}
	c := load(t, "plugin", "oracle", "out", t.TempDir(), "options.oracle.max_bach", "8", "options.oracle.Offline.precision", "fp8")
	_, err := Run(context.Background(), Spec{Config: c, Plugins: p})
	require.Error(t, err)
	assert.Equal(t, exitcode.Config, exitcode.Of(err))
	for _, want := range []string{
		`options.oracle.max_bach = "8" (flag --options.oracle.max_bach): unknown option "max_bach" (did you mean max_batch?)`,
		`options.oracle.Offline.precision = "fp8" (flag --options.oracle.Offline.precision): option precision="fp8": want one of fp16, int8`,
		"plugins describe oracle",
	} {
		assert.Contains(t, err.Error()+exitcode.Hint(err), want)
	}
	assert.NotContains(t, b.Calls(), "Load", "rejected before Load")
}

// TestRemoteRunOptionsOfTheServedPlugin: a run through a served plugin,
// with no --plugin, loads it with the options keyed by the name the
// served plugin gives itself.
func TestRemoteRunOptionsOfTheServedPlugin(t *testing.T) {
	t.Parallel()
	b, p := oracle(t, nil)
	c := load(t, "remote.address", "sut:7000", "out", t.TempDir(), "settings.min_duration", "50", "settings.min_query_count", "64",
		"options.oracle.batch", "4", "options.other.batch", "9")
	_, err := Run(context.Background(), Spec{Config: c, Plugins: p})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"batch": "4"}, b.Model().Options)
}
