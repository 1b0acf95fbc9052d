//go:build linux || darwin

package backend

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// The benchmark models run on ONNX Runtime too, where it loads: both
// engines must answer alike.
func init() {
	otherEngines = append(otherEngines, func(t *testing.T) (modelEngine, bool) {
		if testing.Short() {
			return modelEngine{}, false
		}
		lib := ortLibraryOrEmpty(t)
		if lib == "" {
			return modelEngine{}, false
		}
		return modelEngine{name: "ort", load: func(t *testing.T, m sdk.Model) *Backend {
			t.Helper()
			return loadOrt(t, lib, m)
		}}, true
	})
}

// loadOrt loads m on the ort engine with library lib, one thread, m's
// options on top; the backend closes when the test ends.
func loadOrt(t *testing.T, lib string, m sdk.Model) *Backend {
	t.Helper()
	opts := map[string]string{OptEngine: "ort", ort.OptLibrary: lib, OptThreads: "1"}
	for k, v := range m.Options {
		opts[k] = v
	}
	m.Options = opts
	b := New(goengine.New(), ort.New())
	require.NoError(t, b.Load(context.Background(), m))
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// ortLibraryOrEmpty returns the ONNX Runtime library path, or "" when it
// cannot be loaded here.
func ortLibraryOrEmpty(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(*ortLib)
	require.NoError(t, err)
	s, err := ort.New().Load(context.Background(), fashionmnist.Model(), engineOpts(path))
	if err != nil {
		t.Logf("ONNX Runtime not available (run make ort): %v", err)
		return ""
	}
	require.NoError(t, s.Close())
	return path
}
