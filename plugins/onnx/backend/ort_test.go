//go:build linux || darwin

package backend

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/sdk"
)

var ortLib = flag.String("ort.lib", "../../../third_party/ort/"+ort.DefaultLibrary, "ONNX Runtime library for the ort engine tests (make ort)")

// ortLibrary returns the library path, or skips when ONNX Runtime cannot
// be loaded here.
func ortLibrary(t testing.TB) string {
	t.Helper()
	path, err := filepath.Abs(*ortLib)
	require.NoError(t, err)
	s, err := ort.New().Load(context.Background(), fashionmnist.Model(), engineOpts(path))
	if errors.Is(err, ort.ErrLibrary) {
		t.Skipf("ONNX Runtime not available (run make ort): %v", err)
	}
	require.NoError(t, err)
	require.NoError(t, s.Close())
	return path
}

// TestEnginesAgree serves the Fashion-MNIST subset through the backend
// with each engine: the same predicted class for every image.
func TestEnginesAgree(t *testing.T) {
	t.Parallel()
	lib := ortLibrary(t)
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	ref, err := fashionmnist.LoadReference()
	require.NoError(t, err)
	preds := map[string][]int{}
	for _, name := range []string{"go", "ort"} {
		b := New(goengine.New(), ort.New())
		require.NoError(t, b.Load(context.Background(), sdk.Model{Bytes: fashionmnist.Model(),
			Options: map[string]string{OptEngine: name, OptBatch: "50", OptThreads: "1", ort.OptLibrary: lib}}))
		c := newCompleter()
		var q sdk.Query
		for i, img := range set.Images {
			q.Samples = append(q.Samples, sdk.Sample{ID: uint64(i), Data: img, WantOutput: true})
		}
		require.NoError(t, b.Infer(context.Background(), q, c))
		require.NoError(t, b.Close())
		require.Empty(t, c.failed)
		for i := range set.Images {
			preds[name] = append(preds[name], argmax(c.done[uint64(i)]))
		}
	}
	assert.Equal(t, ref.Predictions, preds["go"])
	assert.Equal(t, ref.Predictions, preds["ort"])
	assert.Contains(t, New(goengine.New(), ort.New()).Info().Description, "go, ort")
}
