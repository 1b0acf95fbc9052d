//go:build linux || darwin

package backend

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// externalModel writes the Fashion-MNIST model into a new directory with
// its weights in model.onnx_data beside it, as exporters write models
// over 2 GB, and returns the model's path.
func externalModel(t *testing.T) string {
	t.Helper()
	m, err := onnxpb.Decode(fashionmnist.Model())
	require.NoError(t, err)
	data := onnxpb.Externalize(m, "model.onnx_data", 0)
	require.NotEmpty(t, data)
	dir := t.TempDir()
	path := filepath.Join(dir, "model.onnx")
	require.NoError(t, os.WriteFile(path, onnxpb.Encode(m), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx_data"), data, 0o600))
	return path
}

// TestExternalData serves the Fashion-MNIST model with its weights in an
// external data file, given by path, through each engine: the same bytes
// out as the model with its weights inline. Given as bytes (as a WASM
// plugin gets it), it fails naming the tensor, the file and why.
func TestExternalData(t *testing.T) {
	t.Parallel()
	lib := ortLibrary(t)
	path := externalModel(t)
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	images := set.Images[:64]
	serve := func(m sdk.Model) map[uint64][]byte {
		b := New(goengine.New(), ort.New())
		require.NoError(t, b.Load(context.Background(), m))
		defer func() { require.NoError(t, b.Close()) }()
		c := newCompleter()
		var q sdk.Query
		for i, img := range images {
			q.Samples = append(q.Samples, sdk.Sample{ID: uint64(i), Data: img, WantOutput: true})
		}
		require.NoError(t, b.Infer(context.Background(), q, c))
		require.Empty(t, c.failed)
		return c.done
	}
	for _, name := range []string{"go", "ort"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := map[string]string{OptEngine: name, OptBatch: "16", OptThreads: "1", ort.OptLibrary: lib}
			want := serve(sdk.Model{Bytes: fashionmnist.Model(), Options: opts})
			assert.Equal(t, want, serve(sdk.Model{Path: path, Options: opts}))

			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			err = New(goengine.New(), ort.New()).Load(context.Background(), sdk.Model{Bytes: raw, Options: opts})
			require.ErrorIs(t, err, onnxpb.ErrExternalData)
			assert.Contains(t, err.Error(), `file "model.onnx_data"`)
			assert.Contains(t, err.Error(), "a WASM plugin always does")
		})
	}
}
