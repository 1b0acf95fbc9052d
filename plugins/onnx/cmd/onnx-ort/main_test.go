//go:build linux || darwin

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/backend"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// ortLibrary is where `make ort` puts ONNX Runtime.
var ortLibrary = filepath.Join("..", "..", "..", "..", "third_party", "ort", ort.DefaultLibrary)

// TestManifest: the manifest `make build` installs names the binary and
// agrees with what the plugin says of itself.
func TestManifest(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("plugin.json")
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	assert.Contains(t, m["description"], "ONNX Runtime")
	delete(m, "description")
	assert.Equal(t, map[string]any{"name": name, "entry": name, "version": backend.Version, "kind": "process",
		"abi_major": float64(abi.Major)}, m)
	b, err := newBackend(t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, name, b.Info().Name)
	assert.Equal(t, backend.Version, b.Info().Version)
	assert.Contains(t, b.Info().Description, "default ort, go when ort is unavailable")
	var schema []string
	for _, o := range b.Info().Options {
		schema = append(schema, o.Name)
	}
	assert.Subset(t, schema, []string{backend.OptEngine, backend.OptThreads, ort.OptInterOpThreads, ort.OptLibrary})
}

// load loads the demo model on a backend for a plugin installed in dir,
// returning what it logged.
func load(t *testing.T, dir string, opts map[string]string) (string, error) {
	t.Helper()
	b, err := newBackend(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	var log bytes.Buffer
	ctx := sdk.WithLogger(context.Background(), slog.New(slog.NewTextHandler(&log, nil)))
	err = b.Load(ctx, sdk.Model{Bytes: fashionmnist.Model(), Options: opts})
	return log.String(), err
}

// TestMissingLibrary: without ONNX Runtime beside the plugin or where the
// options say, the go engine serves the model and the warning names the
// library and says how to install it; with engine=ort, Load fails with
// the same advice.
func TestMissingLibrary(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), ort.DefaultLibrary)
	log, err := load(t, t.TempDir(), map[string]string{ort.OptLibrary: missing})
	require.NoError(t, err)
	for _, want := range []string{"level=WARN", "the go engine runs the model instead", missing, "run `make ort`, then `make build`",
		"bin/plugins/onnx-ort/" + ort.DefaultLibrary, "--set onnx-ort.ort_library=PATH"} {
		assert.Contains(t, log, want)
	}

	log, err = load(t, t.TempDir(), map[string]string{ort.OptLibrary: missing, backend.OptEngine: "ort"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), missing)
	assert.Contains(t, err.Error(), "run `make ort`, then `make build`")
	assert.Equal(t, abi.FailedPrecondition, sdk.CodeOf(err))
	assert.Empty(t, log)
}

// TestLibraryBesidePlugin: the library in the plugin's directory (where
// `make build` installs it) serves the model with no option naming it.
func TestLibraryBesidePlugin(t *testing.T) {
	t.Parallel()
	lib, err := filepath.Abs(ortLibrary)
	require.NoError(t, err)
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("ONNX Runtime not found at %s (%v): run `make ort`", lib, err)
	}
	dir := t.TempDir()
	require.NoError(t, os.Symlink(lib, filepath.Join(dir, ort.DefaultLibrary)))
	log, err := load(t, dir, map[string]string{backend.OptEngine: "ort"})
	require.NoError(t, err, "engine=ort fails rather than fall back")
	assert.NotContains(t, log, "level=WARN")
	assert.Contains(t, log, "onnx-ort: the ort engine runs the model")
}
