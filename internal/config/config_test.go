package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// fakeConf reads "model.scenario.key = value" lines; the most specific
// pattern wins, which is all Load relies on from a ConfReader.
func fakeConf(_ Layer, path, model, scenario string) ([]ConfEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	best := map[string]ConfEntry{}
	rank := map[string]int{}
	for i, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		parts := strings.SplitN(strings.TrimSpace(k), ".", 3)
		m, s := parts[0] == model, parts[1] == scenario
		if (!m && parts[0] != "*") || (!s && parts[1] != "*") {
			continue
		}
		r := map[bool]int{true: 2}[m] + map[bool]int{true: 1}[s]
		if old, ok := rank[parts[2]]; !ok || r >= old {
			rank[parts[2]] = r
			best[parts[2]] = ConfEntry{Setting: parts[2], Value: strings.TrimSpace(v), Line: i + 1, Pattern: strings.TrimSpace(k)}
		}
	}
	var out []ConfEntry
	for _, e := range best {
		out = append(out, e)
	}
	return out, nil
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestLayersAndProvenance(t *testing.T) {
	t.Parallel()
	mlperf := write(t, "mlperf.conf", "*.Server.target_latency = 10\nresnet50.Server.target_latency = 15\n*.*.min_duration = 600000\n")
	user := write(t, "user.conf", "resnet50.Server.target_qps = 200\n*.*.min_duration = 60000\n")
	file := write(t, "run.toml", `
benchmark = "resnet50"
mlperf_conf = "`+mlperf+`"
user_conf = "`+user+`"
[settings]
target_qps = 250
[options.onnx]
threads = 2
batch = 8
`)
	c, err := Load(Inputs{
		ConfigFile: file,
		Environ:    []string{"MLPERF_HOST_SCENARIO=Server", "MLPERF_HOST_OPTIONS__ONNX__THREADS=3", "MLPERF_HOST_DEVICE=1", "HOME=/root"},
		Flags:      []FlagValue{{Key: "options.onnx.batch", Value: "16", Flag: "--set onnx.batch=16"}},
		ReadConf:   fakeConf,
	})
	require.NoError(t, err)
	assert.Equal(t, "resnet50", c.Benchmark.Name)
	assert.Equal(t, benchmarks.Server, c.Scenario)
	assert.Equal(t, map[string]string{"threads": "3", "batch": "16"}, c.PluginOptions("onnx"))
	assert.Equal(t, []string{"MLPERF_HOST_DEVICE"}, c.Ignored())

	tests := []struct {
		key, value string
		layer      Layer
		where      string
	}{
		{"benchmark", "resnet50", LayerFile, file},
		{"scenario", "Server", LayerEnv, "MLPERF_HOST_SCENARIO"},
		{"mode", "performance", LayerBuiltin, "default"},
		// mlperf.conf's model-specific line beats the table and its wildcard.
		{"settings.target_latency", "15", LayerMLPerfConf, mlperf + ":2 (resnet50.Server.target_latency)"},
		{"settings.min_duration", "60000", LayerUserConf, user + ":2 (*.*.min_duration)"},
		{"settings.target_qps", "250", LayerFile, file},
		{"settings.performance_sample_count_override", "1024", LayerBuiltin, "mlperf.conf v6.1 (resnet50.*.performance_sample_count_override)"},
		{"settings.target_latency_percentile", "99", LayerBuiltin, "mlperf.conf v6.1 (*.Server.target_latency_percentile)"},
		{"settings.schedule_rng_seed", "16159082839903944936", LayerBuiltin, "mlperf.conf v6.1 (*.*.schedule_rng_seed)"},
		{"round", "v6.1", LayerBuiltin, "default"},
		{"options.onnx.threads", "3", LayerEnv, "MLPERF_HOST_OPTIONS__ONNX__THREADS"},
		{"options.onnx.batch", "16", LayerFlag, "--set onnx.batch=16"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			v, ok := c.Lookup(tt.key)
			require.True(t, ok)
			assert.Equal(t, tt.value, v.Value)
			assert.Equal(t, Source{tt.layer, tt.where}, v.Source)
		})
	}
}

func TestYAMLAndDefaults(t *testing.T) {
	t.Parallel()
	file := write(t, "run.yaml", "scenario: SingleStream\nhost:\n  instances: 2\n  plugin_dirs: [/a, /b]\n  call_timeout: 30s\n  ring_spin: 50us\n")
	c, err := Load(Inputs{ConfigFile: file})
	require.NoError(t, err)
	assert.Equal(t, benchmarks.DemoName, c.Benchmark.Name)
	assert.Equal(t, benchmarks.SingleStream, c.Scenario)
	assert.Equal(t, HostConfig{Instances: 2, CallTimeout: 30e9, Guard: "loops", PluginDirs: []string{"/a", "/b"},
		SharedRings: true, RingSpin: 50 * time.Microsecond, CloseTimeout: 10 * time.Second, PIDNamespace: "auto", WasiNN: "ort", WasiNNThreads: 1, LogLevel: "warn"}, c.Host)
	assert.Equal(t, "onnx", c.Plugin)
	v, _ := c.Lookup("settings.min_query_count")
	assert.Equal(t, "256", v.Value, "the demo's own minimum")
	assert.Equal(t, Source{LayerBuiltin, "demo rules (fashion-mnist.SingleStream.min_query_count)"}, v.Source)
	assert.Equal(t, "fashion-mnist SingleStream performance", c.String())
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   func(t *testing.T) Inputs
		want []string
	}{
		{name: "bad scenario from env", want: []string{`scenario = "Sever" (environment MLPERF_HOST_SCENARIO)`, "want one of SingleStream, MultiStream, Server, Offline"},
			in: func(*testing.T) Inputs { return Inputs{Environ: []string{"MLPERF_HOST_SCENARIO=Sever"}} }},
		{name: "unknown benchmark from flag", want: []string{`benchmark = "resnet51" (flag --benchmark)`, "want one of 3d-unet,"},
			in: func(*testing.T) Inputs {
				return Inputs{Flags: []FlagValue{{Key: "benchmark", Value: "resnet51", Flag: "--benchmark"}}}
			}},
		{name: "benchmark of another round", want: []string{`benchmark = "retinanet" (flag --benchmark)`, `unknown benchmark "retinanet" in round v6.1`},
			in: func(*testing.T) Inputs {
				return Inputs{Flags: []FlagValue{{Key: "benchmark", Value: "retinanet", Flag: "--benchmark"}}}
			}},
		{name: "unknown round", want: []string{`round = "v4.1" (environment MLPERF_HOST_ROUND)`, "want one of v5.1, v6.0, v6.1"},
			in: func(*testing.T) Inputs { return Inputs{Environ: []string{"MLPERF_HOST_ROUND=v4.1"}} }},
		{name: "bad setting in user.conf", want: []string{`settings.target_qps = "fast" (user.conf `, ":1 (*.Offline.target_qps)): want a number"},
			in: func(t *testing.T) Inputs {
				u := write(t, "user.conf", "*.Offline.target_qps = fast\n")
				return Inputs{Flags: []FlagValue{{Key: "user_conf", Value: u, Flag: "--user-conf"}}, ReadConf: fakeConf}
			}},
		{name: "unknown setting", want: []string{`settings.target_qsp = "5" (flag --set settings.target_qsp=5)`, "a LoadGen setting: "},
			in: func(*testing.T) Inputs {
				return Inputs{Flags: []FlagValue{{Key: "settings.target_qsp", Value: "5", Flag: "--set settings.target_qsp=5"}}}
			}},
		{name: "unknown key in file", want: []string{`scenaro = "Server" (config file `, "unknown key: want a key among round, benchmark, scenario"},
			in: func(t *testing.T) Inputs { return Inputs{ConfigFile: write(t, "c.toml", `scenaro = "Server"`)} }},
		{name: "two errors at once", want: []string{"host.instances", "host.guard"},
			in: func(t *testing.T) Inputs {
				return Inputs{ConfigFile: write(t, "c.toml", "[host]\ninstances = -1\nguard = \"none\"\n")}
			}},
		{name: "file syntax", want: []string{"config file ", "c.toml"},
			in: func(t *testing.T) Inputs { return Inputs{ConfigFile: write(t, "c.toml", "scenario = [")} }},
		{name: "file extension", want: []string{"want .toml, .yaml or .yml"},
			in: func(t *testing.T) Inputs { return Inputs{ConfigFile: write(t, "c.ini", "")} }},
		{name: "missing user.conf", want: []string{"user.conf /nonexistent/user.conf"},
			in: func(*testing.T) Inputs {
				return Inputs{Flags: []FlagValue{{Key: "user_conf", Value: "/nonexistent/user.conf", Flag: "--user-conf"}}, ReadConf: fakeConf}
			}},
		{name: "bad duration", want: []string{`host.call_timeout = "5 minutes"`, "a Go duration"},
			in: func(*testing.T) Inputs { return Inputs{Environ: []string{"MLPERF_HOST_HOST__CALL_TIMEOUT=5 minutes"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(tt.in(t))
			require.ErrorIs(t, err, ErrConfig)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestRounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		round, seed string
		retinanet   bool
	}{
		{"v5.1", "18209322760996052031", true},
		{"v6.0", "3936089224930324775", true},
		{"v6.1", "16159082839903944936", false},
	}
	for _, tt := range tests {
		t.Run(tt.round, func(t *testing.T) {
			t.Parallel()
			c, err := Load(Inputs{Flags: []FlagValue{{Key: KeyRound, Value: tt.round, Flag: "--round"}}})
			require.NoError(t, err)
			assert.Equal(t, tt.round, c.Round.Name)
			v, _ := c.Lookup("settings.schedule_rng_seed")
			assert.Equal(t, tt.seed, v.Value)
			_, err = Load(Inputs{Flags: []FlagValue{{Key: KeyRound, Value: tt.round, Flag: "--round"}, {Key: KeyBenchmark, Value: "retinanet", Flag: "--benchmark"}}})
			assert.Equal(t, tt.retinanet, err == nil, "%v", err)
		})
	}
}

// TestOfficialSettingsKnown: config takes every setting the official
// mlperf.conf files set (builtinLayer would skip one it does not).
func TestOfficialSettingsKnown(t *testing.T) {
	t.Parallel()
	unknown := map[string]bool{}
	for _, r := range benchmarks.RoundNames() {
		for _, b := range benchmarks.MustRound(r).All() {
			for _, ss := range b.Settings {
				for _, s := range ss {
					if _, ok := settingKinds[s.Key]; !ok {
						unknown[s.Key] = true
					}
				}
			}
		}
	}
	assert.Empty(t, unknown)
}

func TestSystemDesc(t *testing.T) {
	t.Parallel()
	file := write(t, "c.toml", "[system_desc]\ncooling = \"air\"\nhost_networking = \"1x 10GbE\"\n")
	c, err := Load(Inputs{ConfigFile: file, Flags: []FlagValue{{Key: "system_desc.cooling", Value: "liquid", Flag: "--set system_desc.cooling=liquid"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cooling": "liquid", "host_networking": "1x 10GbE"}, c.SystemDesc())
	key, err := SetKey("system_desc.hw_notes")
	require.NoError(t, err)
	assert.Equal(t, "system_desc.hw_notes", key)
}

func TestSetByUser(t *testing.T) {
	t.Parallel()
	user := write(t, "user.conf", "*.Server.target_qps = 100\n")
	c, err := Load(Inputs{Flags: []FlagValue{{Key: KeyScenario, Value: "Server", Flag: "--scenario"}}})
	require.NoError(t, err)
	assert.False(t, c.SetByUser("settings.target_qps"), "the official mlperf.conf's placeholder")
	c, err = Load(Inputs{Flags: []FlagValue{{Key: KeyScenario, Value: "Server", Flag: "--scenario"}, {Key: KeyUserConf, Value: user, Flag: "--user-conf"}}, ReadConf: fakeConf})
	require.NoError(t, err)
	assert.True(t, c.SetByUser("settings.target_qps"))
}

func TestSetKey(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want, err string }{
		{in: "onnx.threads", want: "options.onnx.threads"},
		{in: "tensorrt.engine", want: "options.tensorrt.engine"},
		{in: "settings.target_qps", want: "settings.target_qps"},
		{in: "scenario", want: "scenario"},
		{in: "host.instances", want: "host.instances"},
		{in: "threads", err: "not PLUGIN.OPTION"},
		{in: "", err: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := SetKey(tt.in)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestWith(t *testing.T) {
	t.Parallel()
	c, err := Load(Inputs{})
	require.NoError(t, err)
	src := Source{LayerFlag, "TEST04"}
	d := c.With(src, map[string]string{"performance_issue_same": "1", "min_duration": "1000"})
	v, _ := d.Lookup("settings.performance_issue_same")
	assert.Equal(t, Value{Key: "settings.performance_issue_same", Value: "1", Source: src}, v)
	v, _ = d.Lookup("settings.min_duration")
	assert.Equal(t, "1000", v.Value)
	v, _ = c.Lookup("settings.min_duration")
	assert.Equal(t, "1000", v.Value, "the original is not modified")
}

// TestDatasetFeatures: rgat's data set is opened with graph_sample, the
// others with audio_features, each at its default unless set.
func TestDatasetFeatures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		flags []FlagValue
		want  string
	}{
		{name: "rgat", flags: []FlagValue{{Key: KeyBenchmark, Value: "rgat", Flag: "--benchmark"}}, want: "seed"},
		{name: "rgat neighbourhood", flags: []FlagValue{{Key: KeyBenchmark, Value: "rgat", Flag: "--benchmark"},
			{Key: KeyGraphSample, Value: "neighbourhood", Flag: "--set"}}, want: "neighbourhood"},
		{name: "whisper", flags: []FlagValue{{Key: KeyBenchmark, Value: "whisper", Flag: "--benchmark"},
			{Key: KeyGraphSample, Value: "neighbourhood", Flag: "--set"}}, want: "audio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(Inputs{Flags: tt.flags})
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.DatasetFeatures())
		})
	}
	_, err := Load(Inputs{Flags: []FlagValue{{Key: KeyGraphSample, Value: "blocks", Flag: "--set"}}})
	assert.ErrorContains(t, err, "graph_sample")
}
