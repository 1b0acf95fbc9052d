package main

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

var (
	onnxOrtOnce    sync.Once
	onnxOrtPlugins string
)

// onnxOrt installs the native onnx plugin once for the tests, as `make
// build` does: bin/plugins/onnx-ort/ with its manifest and, when `make
// ort` has fetched it, ONNX Runtime beside it. It returns the plugin
// directory and the library ("" when absent).
func onnxOrt(t *testing.T) (plugins, lib string) {
	t.Helper()
	libs, err := filepath.Glob(filepath.Join("..", "..", "third_party", "ort", "libonnxruntime.*"))
	require.NoError(t, err)
	if len(libs) > 0 {
		lib, err = filepath.Abs(libs[0])
		require.NoError(t, err)
	}
	onnxOrtOnce.Do(func() {
		const src = "../../plugins/onnx/cmd/onnx-ort"
		p := installPlugin(t, filepath.Dir(binary), "onnx-ort", src, src+"/plugin.json")
		if lib != "" {
			require.NoError(t, os.Symlink(lib, filepath.Join(p, "onnx-ort", filepath.Base(lib))))
		}
		onnxOrtPlugins = p
	})
	require.NotEmpty(t, onnxOrtPlugins, "installing onnx-ort failed in another test")
	return onnxOrtPlugins, lib
}

// TestOnnxOrtPlugin runs the demo on the onnx-ort plugin with ONNX Runtime
// installed beside it, as `make build` installs it after `make ort`.
func TestOnnxOrtPlugin(t *testing.T) {
	t.Parallel()
	plugins, lib := onnxOrt(t)
	if lib == "" {
		t.Skip("ONNX Runtime not found in third_party/ort: run `make ort`")
	}
	base := []string{"run", "--plugin", "onnx-ort", "--plugin-dirs", plugins, "--scenario", "Offline", "--out", "logs"}

	t.Run("performance", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		// About a second of samples at the rate a busy 2-core machine
		// reaches; the verdict may go either way.
		r := mlperfHost(t, dir, append(base, "--set", "settings.min_duration=1000", "--set", "settings.target_qps=20000")...)
		require.Contains(t, []exitcode.Code{exitcode.OK, exitcode.InvalidResult}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Contains(t, r.stdout, "onnx-ort 0.1.0 (process, ")
		assert.NotContains(t, r.stderr, "unavailable", "ONNX Runtime ran the model")
		offlineVerdictMatchesLatencies(t, filepath.Join(dir, "logs"), r.code)
	})
	t.Run("accuracy", func(t *testing.T) {
		t.Parallel()
		r := mlperfHost(t, t.TempDir(), append(base, "--mode", "accuracy", "--set", "onnx-ort.engine=ort")...)
		require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Contains(t, r.stdout, "accuracy=88.700%, good=887, total=1000")
	})
}

// offlineVerdictMatchesLatencies checks an Offline run's verdict against
// what its detail log measured: the minimum duration is met exactly when
// the last sample completed after it, the run is VALID exactly when that
// and the query minimum are met, samples/s is the samples over that
// duration, and the exit code follows the verdict.
func offlineVerdictMatchesLatencies(t *testing.T, logs string, code exitcode.Code) {
	t.Helper()
	f, err := os.Open(filepath.Join(logs, "mlperf_log_detail.txt"))
	require.NoError(t, err)
	defer f.Close()
	l, err := mllog.Parse(f)
	require.NoError(t, err)
	num := func(key string) float64 {
		v, err := l.Float(key)
		require.NoError(t, err)
		return v
	}
	flag := func(key string) bool {
		v, ok := l.String(key)
		require.True(t, ok, key)
		b, err := strconv.ParseBool(v)
		require.NoError(t, err, key)
		return b
	}
	duration := num("result_max_latency_ns")
	minDuration := flag("result_min_duration_met")
	assert.Equal(t, duration >= num("effective_min_duration_ms")*1e6, minDuration, "min duration met, from the latencies")
	valid := minDuration && flag("result_min_queries_met")
	validity, ok := l.String("result_validity")
	require.True(t, ok)
	assert.Equal(t, map[bool]string{true: "VALID", false: "INVALID"}[valid], validity)
	assert.InEpsilon(t, num("effective_samples_per_query")/(duration/1e9), num("result_samples_per_second"), 1e-6)
	assert.Equal(t, map[bool]exitcode.Code{true: exitcode.OK, false: exitcode.InvalidResult}[valid], code)
}

// TestOnnxOrtWithoutLibrary: where ONNX Runtime cannot be loaded (here:
// the ort_library option names a library that is not there), onnx-ort
// runs the demo on the go engine and says, naming the library, how to get
// ONNX Runtime; asked for the ort engine by name, it fails with that
// message instead.
func TestOnnxOrtWithoutLibrary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins, _ := onnxOrt(t)
	missing := filepath.Join(dir, "nowhere", "libonnxruntime.so.1")
	args := []string{"run", "--plugin", "onnx-ort", "--plugin-dirs", plugins, "--mode", "accuracy", "--out", "logs",
		"--set", "onnx-ort.ort_library=" + missing}
	advice := []string{missing, "run `make ort`, then `make build`", "bin/plugins/onnx-ort/", "--set onnx-ort.ort_library=PATH"}

	r := mlperfHost(t, dir, args...)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "accuracy=88.700%, good=887, total=1000")
	assert.Contains(t, r.stderr, "level=WARN")
	assert.Contains(t, r.stderr, "onnx-ort: the ort engine is unavailable; the go engine runs the model instead")
	for _, w := range advice {
		assert.Contains(t, r.stderr, w)
	}

	r = mlperfHost(t, dir, append(args, "--set", "onnx-ort.engine=ort")...)
	require.Equal(t, exitcode.PluginFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "FAILED_PRECONDITION")
	for _, w := range advice {
		assert.Contains(t, r.stderr, w)
	}
}
