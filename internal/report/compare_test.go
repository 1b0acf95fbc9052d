package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	run := func(name, bench, scenario, validity string) *Run {
		return runOf(t, name, map[string]string{"qsl_name": bench + " (builtin:x)", "effective_scenario": scenario,
			"result_validity": validity, "effective_test_mode": "PerformanceOnly"})
	}
	tests := []struct {
		name     string
		runs     []*Run
		warnings []string
		err      string
	}{
		{name: "alike", runs: []*Run{run("a", "resnet", "Offline", "VALID"), run("b", "resnet", "Offline", "INVALID")}},
		{name: "scenarios differ", runs: []*Run{run("a", "resnet", "Offline", "VALID"), run("b", "resnet", "Server", "VALID")},
			warnings: []string{"the runs are of different scenarios (a: Offline, b: Server): their numbers do not measure the same thing"}},
		{name: "benchmarks differ", runs: []*Run{run("a", "resnet", "Offline", "VALID"), run("b", "retinanet", "Offline", "VALID")},
			warnings: []string{"the runs are of different benchmarks (a: resnet, b: retinanet): their numbers do not measure the same thing"}},
		{name: "benchmark unknown", runs: []*Run{run("a", "resnet", "Offline", "VALID"),
			runOf(t, "b", map[string]string{"qsl_name": "PyQSL", "effective_scenario": "Offline", "result_validity": "VALID"})},
			warnings: []string{"the benchmark of b is not in its detail log: it may differ from the others'"}},
		{name: "an accuracy run", runs: []*Run{run("a", "resnet", "Offline", "VALID"),
			runOf(t, "acc", map[string]string{"effective_test_mode": "AccuracyOnly"})},
			err: "runs not comparable: run acc has no performance results (effective_test_mode AccuracyOnly): compare performance runs"},
		{name: "one run", runs: []*Run{run("a", "resnet", "Offline", "VALID")},
			err: "runs not comparable: a comparison needs two runs or more, got 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			warnings, err := Check(tt.runs)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrNotComparable)
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.warnings, warnings)
		})
	}
}

func TestComparisonAcrossScenarios(t *testing.T) {
	t.Parallel()
	runs := []*Run{loadFixture(t, "onnx-ort-singlestream", "SingleStream", false), loadFixture(t, "onnx-ort-multistream", "MultiStream", true)}
	var b bytes.Buffer
	warnings, err := WriteComparison(&b, runs)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "onnx-ort-singlestream: SingleStream, onnx-ort-multistream: MultiStream")
	assert.Contains(t, b.String(), "Not like for like.", "the page says it too")
	checkPage(t, b.String(), pageWant{title: []string{"fashion-mnist: ", "onnx-ort-singlestream", "onnx-ort-multistream"}, runs: 2,
		metric: map[string][]string{
			// Each run's own latency keys: per sample, per query.
			"90th percentile latency":           {"7.38 ms", "—"},
			"90th percentile latency per query": {"—", "10.9 ms"},
		}})
}

func TestComparisonServer(t *testing.T) {
	t.Parallel()
	runs := []*Run{loadFixture(t, "onnx-server", "Server", false), loadFixture(t, "onnx-ort-server", "Server", false)}
	var b bytes.Buffer
	warnings, err := WriteComparison(&b, runs)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	checkPage(t, b.String(), pageWant{title: []string{"fashion-mnist Server: onnx (onnx-server) vs onnx-ort (onnx-ort-server)"}, runs: 2,
		metric: map[string][]string{
			"Completed samples per second": {"40.45 samples/s", "310.8 samples/s", "×7.68 better"},
			"99th percentile latency":      {"815 ms", "316 ms", "×0.388 better"},
			"Target QPS (setting)":         {"40 queries/s", "300 queries/s"},
		}})
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "onnx-ort-accuracy", "Offline", false)
	r, err := Load(dir, nil)
	require.NoError(t, err)
	assert.Equal(t, "onnx-ort-accuracy", r.Name)
	assert.Equal(t, "accuracy=88.700%, good=887, total=1000", r.Accuracy)
	assert.False(t, r.HasPerformance())

	_, err = Load(filepath.Join(dir, "nothing"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, err.Error(), DetailFile)

	require.NoError(t, os.WriteFile(filepath.Join(dir, TraceFile), []byte(`{"traceEvents": 1}`), 0o644))
	_, err = Load(dir, nil)
	require.ErrorIs(t, err, ErrTrace)
	assert.Contains(t, err.Error(), TraceFile)
}

func TestUniqueNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		dirs []string
		want []string
	}{
		{"base names", []string{"/w/a/onnx", "/w/b/onnx-ort"}, []string{"onnx", "onnx-ort"}},
		{"same base name", []string{"/w/demo/performance", "/w/demo2/performance", "/w/x"}, []string{"demo/performance", "demo2/performance", "x"}},
		// Never the whole absolute path, even for the same directory twice.
		{"same directory", []string{"/w/a", "/w/a"}, []string{"w/a", "w/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runs := make([]*Run, len(tt.dirs))
			for i := range runs {
				runs[i] = &Run{}
			}
			UniqueNames(runs, tt.dirs)
			for i, r := range runs {
				assert.Equal(t, tt.want[i], r.Name)
			}
		})
	}
}
