package submission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// detail writes a detail log with the given keys.
func detail(t *testing.T, dir string, kv map[string]any) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var b strings.Builder
	for k, v := range kv {
		fmt.Fprintf(&b, `%s{"key": %q, "value": %#v, "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}`+"\n",
			mllog.Prefix, k, v)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, DetailFile), []byte(b.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, SummaryFile), []byte("summary\n"), 0o644))
}

func perfLog(sc benchmarks.Scenario, metric float64) map[string]any {
	m := map[string]any{
		"effective_scenario": string(sc), "effective_test_mode": "PerformanceOnly", "result_validity": "VALID",
		"effective_min_duration_ms": 1000, "effective_min_query_count": 1000, "effective_performance_sample_count": 1000,
		"effective_target_latency_percentile": 0.9,
		"effective_qsl_rng_seed":              "1780908523862526354", "effective_sample_index_rng_seed": "14771362308971278857",
		"effective_schedule_rng_seed": "18209322760996052031",
	}
	switch sc {
	case benchmarks.SingleStream:
		m["result_90.00_percentile_latency_ns"] = metric
	case benchmarks.MultiStream:
		m["effective_target_latency_percentile"] = 0.99
		m["result_99.00_percentile_per_query_latency_ns"] = metric
	case benchmarks.Offline:
		m["result_samples_per_second"] = metric
	}
	return m
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// tree writes a complete, passing demo submission for an edge system.
func tree(t *testing.T) (string, Layout) {
	t.Helper()
	b, err := benchmarks.Lookup(benchmarks.DemoName)
	require.NoError(t, err)
	l := Layout{Root: t.TempDir(), Division: "open", Submitter: "acme", System: "box", Benchmark: b}
	require.NoError(t, WriteSystem(l.SystemFile(), System{
		Division: "open", Submitter: "acme", Status: "available", SystemName: "box", SystemType: "edge", NumberOfNodes: 1,
		HostProcessorModelName: "cpu", HostProcessorsPerNode: 1, HostProcessorCoreCount: 2, AcceleratorsPerNode: 0,
		Framework: "mlperf-host", OperatingSystem: "linux",
	}))
	for _, sc := range b.Requires(benchmarks.Edge) {
		l.Scenario = sc
		detail(t, l.PerformanceDir(), perfLog(sc, 100))
		acc := perfLog(sc, 100)
		acc["effective_test_mode"] = "AccuracyOnly"
		detail(t, l.AccuracyDir(), acc)
		write(t, filepath.Join(l.AccuracyDir(), AccuracyFile), "[]\n")
		write(t, filepath.Join(l.AccuracyDir(), AccuracyText), "accuracy=88.700%, good=887, total=1000\n")
		for _, f := range []string{"README.md", "user.conf", filepath.Base(l.MeasurementsFile())} {
			write(t, filepath.Join(l.MeasurementsDir(), f), "x\n")
		}
		for _, test := range b.Compliance {
			detail(t, l.CompliancePerformanceDir(test), perfLog(sc, 100))
			write(t, filepath.Join(l.ComplianceDir(test), VerifyPerf), Pass+"\n")
			if test == benchmarks.TEST01 {
				write(t, filepath.Join(l.ComplianceDir(test), VerifyAcc), Pass+"\n")
				write(t, filepath.Join(l.ComplianceAccuracyDir(test), AccuracyFile), "[]\n")
			}
		}
	}
	return l.Root, l
}

func TestCheckPasses(t *testing.T) {
	t.Parallel()
	root, _ := tree(t)
	assert.Empty(t, Check(root))
}

func TestCheckFindsProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		break_ func(t *testing.T, l Layout)
		want   string
	}{
		{name: "missing scenario", want: "edge systems must submit MultiStream", break_: func(t *testing.T, l Layout) {
			l.Scenario = benchmarks.MultiStream
			require.NoError(t, os.RemoveAll(filepath.Dir(filepath.Dir(l.PerformanceDir()))))
		}},
		{name: "invalid run", want: `result_validity is "INVALID"`, break_: func(t *testing.T, l Layout) {
			m := perfLog(benchmarks.Offline, 100)
			m["result_validity"] = "INVALID"
			l.Scenario = benchmarks.Offline
			detail(t, l.PerformanceDir(), m)
		}},
		{name: "too short", want: "effective_min_duration_ms 10 is below the rules' 1000", break_: func(t *testing.T, l Layout) {
			m := perfLog(benchmarks.Offline, 100)
			m["effective_min_duration_ms"] = 10
			l.Scenario = benchmarks.Offline
			detail(t, l.PerformanceDir(), m)
		}},
		{name: "wrong scenario", want: `effective_scenario is "Offline", the directory says SingleStream`, break_: func(t *testing.T, l Layout) {
			l.Scenario = benchmarks.SingleStream
			detail(t, l.PerformanceDir(), perfLog(benchmarks.Offline, 1))
		}},
		{name: "low accuracy", want: "accuracy 50% is below the target 87.8130%", break_: func(t *testing.T, l Layout) {
			l.Scenario = benchmarks.Offline
			write(t, filepath.Join(l.AccuracyDir(), AccuracyText), "accuracy=50%, good=1, total=2\n")
		}},
		{name: "failed compliance", want: "TEST04 did not pass", break_: func(t *testing.T, l Layout) {
			l.Scenario = benchmarks.Offline
			write(t, filepath.Join(l.ComplianceDir(benchmarks.TEST04), VerifyPerf), Fail+"\n")
		}},
		{name: "missing TEST05", want: "missing TEST05 results", break_: func(t *testing.T, l Layout) {
			l.Scenario = benchmarks.SingleStream
			require.NoError(t, os.RemoveAll(l.ComplianceDir(benchmarks.TEST05)))
		}},
		{name: "system field", want: `field "framework" is missing or empty`, break_: func(t *testing.T, l Layout) {
			write(t, l.SystemFile(), `{"division": "open", "submitter": "acme", "system_type": "edge"}`)
		}},
		{name: "closed seeds", want: "the closed division uses the official seed", break_: func(t *testing.T, l Layout) {
			l.Scenario = benchmarks.Offline
			m := perfLog(benchmarks.Offline, 100)
			m["effective_qsl_rng_seed"] = "1"
			detail(t, l.PerformanceDir(), m)
			closed := filepath.Join(l.Root, "closed")
			require.NoError(t, os.Rename(filepath.Join(l.Root, "open"), closed))
			write(t, filepath.Join(closed, "acme", "systems", "box.json"), strings.Replace(mustRead(t, filepath.Join(closed, "acme", "systems", "box.json")), `"open"`, `"closed"`, 1))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, l := tree(t)
			tt.break_(t, l)
			problems := Check(root)
			require.NotEmpty(t, problems)
			var all []string
			for _, p := range problems {
				all = append(all, p.String())
			}
			assert.Contains(t, strings.Join(all, "\n"), tt.want)
		})
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func TestVerifyPerformance(t *testing.T) {
	t.Parallel()
	parse := func(sc benchmarks.Scenario, metric float64) *mllog.Log {
		dir := t.TempDir()
		detail(t, dir, perfLog(sc, metric))
		f, err := os.Open(filepath.Join(dir, DetailFile))
		require.NoError(t, err)
		defer f.Close()
		l, err := mllog.Parse(f)
		require.NoError(t, err)
		return l
	}
	tests := []struct {
		name       string
		test       benchmarks.Test
		sc         benchmarks.Scenario
		base, comp float64
		pass       bool
	}{
		{name: "TEST05 throughput same", test: benchmarks.TEST05, sc: benchmarks.Offline, base: 100, comp: 95, pass: true},
		{name: "TEST05 throughput worse", test: benchmarks.TEST05, sc: benchmarks.Offline, base: 100, comp: 80},
		// Latency: lower is better, so a higher compliance latency is worse.
		{name: "TEST01 latency worse", test: benchmarks.TEST01, sc: benchmarks.SingleStream, base: 100, comp: 120},
		{name: "TEST01 latency better", test: benchmarks.TEST01, sc: benchmarks.SingleStream, base: 100, comp: 50, pass: true},
		{name: "TEST04 cached", test: benchmarks.TEST04, sc: benchmarks.Offline, base: 100, comp: 200},
		{name: "TEST04 not cached", test: benchmarks.TEST04, sc: benchmarks.Offline, base: 100, comp: 105, pass: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := VerifyPerformance(tt.test, parse(tt.sc, tt.base), parse(tt.sc, tt.comp), 0.1)
			require.NoError(t, err)
			assert.Equal(t, tt.pass, v.Pass, v.Text())
		})
	}
}

func TestVerifyAccuracy(t *testing.T) {
	t.Parallel()
	acc := `[{"seq_id": 0, "qsl_idx": 1, "data": "0A"}, {"seq_id": 1, "qsl_idx": 2, "data": "0B"}]`
	v, err := VerifyAccuracy(strings.NewReader(acc), strings.NewReader(`[{"seq_id": 9, "qsl_idx": 2, "data": "0B"}]`))
	require.NoError(t, err)
	assert.True(t, v.Pass)
	assert.Equal(t, "responses logged in performance mode: 1\nequal to the accuracy run's: 1\nsamples absent from the accuracy run: 0\nTEST PASS\n", v.Text())
	v, err = VerifyAccuracy(strings.NewReader(acc), strings.NewReader(`[{"seq_id": 9, "qsl_idx": 2, "data": "0C"}]`))
	require.NoError(t, err)
	assert.False(t, v.Pass)
	assert.Contains(t, v.Text(), "first difference: qsl_idx 2")
	v, err = VerifyAccuracy(strings.NewReader(acc), strings.NewReader(`[]`))
	require.NoError(t, err)
	assert.False(t, v.Pass, "nothing logged is no evidence")
}
