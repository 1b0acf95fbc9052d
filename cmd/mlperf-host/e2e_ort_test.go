package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
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
		assertVerdict(t, r, filepath.Join(dir, "logs"))
	})
	t.Run("accuracy", func(t *testing.T) {
		t.Parallel()
		r := mlperfHost(t, t.TempDir(), append(base, "--mode", "accuracy", "--set", "onnx-ort.engine=ort")...)
		require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Contains(t, r.stdout, "accuracy=88.700%, good=887, total=1000")
	})
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

// TestOnnxOrtOptions: onnx-ort declares its options, the ort engine's
// thread counts among them, and a misspelt one is refused before Load.
func TestOnnxOrtOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins, _ := onnxOrt(t)
	r := mlperfHost(t, dir, "plugins", "describe", "onnx-ort", "--plugin-dirs", plugins)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Regexp(t, `engine\s+enum\s+-\s+go or ort; unset: ort, or go when ort is unavailable`, r.stdout)
	assert.Regexp(t, `threads\s+uint\s+0\s+.*intra-op`, r.stdout)
	assert.Regexp(t, `ort_inter_op_threads\s+uint\s+1\s`, r.stdout)

	r = mlperfHost(t, dir, "run", "--plugin", "onnx-ort", "--plugin-dirs", plugins, "--set", "onnx-ort.ort_inter_op=2")
	assert.Equal(t, exitcode.Config, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, `unknown option "ort_inter_op" (did you mean ort_inter_op_threads?)`)
}
