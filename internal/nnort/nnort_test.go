package nnort

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/ortnn"
)

var library = filepath.Join("..", "..", "third_party", "ort", ortnn.DefaultLibrary)

func engine(t *testing.T) host.NN {
	t.Helper()
	if _, err := os.Stat(library); err != nil {
		t.Skipf("ONNX Runtime library not found at %s (%v): run `make ort`", library, err)
	}
	nn, err := New(Config{Library: library})
	require.NoError(t, err)
	return nn
}

func TestEngine(t *testing.T) {
	t.Parallel()
	nn := engine(t)
	ctx := context.Background()
	g, err := nn.Load(ctx, host.NNONNX, host.NNCPU, [][]byte{fashionmnist.Model()})
	require.NoError(t, err)
	defer g.Close()
	c, err := g.NewContext()
	require.NoError(t, err)
	defer c.Close()
	img := make([]byte, 2*28*28)
	require.NoError(t, c.SetInput(0, host.NNTensor{Type: host.NNU8, Dims: []uint32{2, 1, 28, 28}, Data: img}))
	require.NoError(t, c.Compute(ctx))
	out, err := c.Output(0)
	require.NoError(t, err)
	assert.NotEmpty(t, out)
	_, err = c.Output(5)
	require.ErrorIs(t, err, host.ErrNNNotFound)
}

// TestEngineErrors: each refusal carries the wasi-nn error the guest
// sees.
func TestEngineErrors(t *testing.T) {
	t.Parallel()
	nn := engine(t)
	ctx := context.Background()
	model := [][]byte{fashionmnist.Model()}
	_, err := nn.Load(ctx, host.NNTensorFlow, host.NNCPU, model)
	require.ErrorIs(t, err, host.ErrNNInvalidEncoding)
	_, err = nn.Load(ctx, host.NNONNX, host.NNGPU, model)
	require.ErrorIs(t, err, host.ErrNNUnsupported)
	_, err = nn.Load(ctx, host.NNONNX, host.NNCPU, [][]byte{model[0], model[0]})
	require.ErrorIs(t, err, host.ErrNNInvalidArgument)
	_, err = nn.Load(ctx, host.NNONNX, host.NNCPU, [][]byte{[]byte("garbage")})
	require.ErrorIs(t, err, host.ErrNNInvalidArgument)

	g, err := nn.Load(ctx, host.NNAutodetect, host.NNCPU, model)
	require.NoError(t, err)
	defer g.Close()
	c, err := g.NewContext()
	require.NoError(t, err)
	require.ErrorIs(t, c.SetInput(0, host.NNTensor{Type: host.NNF16, Dims: []uint32{1}, Data: make([]byte, 2)}), host.ErrNNUnsupported)
	require.ErrorIs(t, c.SetInput(3, host.NNTensor{Type: host.NNU8, Dims: []uint32{1}, Data: make([]byte, 1)}), host.ErrNNNotFound)
	require.ErrorIs(t, c.Compute(ctx), host.ErrNNInvalidArgument, "input not set")
}

func TestEngineWithoutLibrary(t *testing.T) {
	t.Parallel()
	nn, err := New(Config{Library: filepath.Join(t.TempDir(), "missing.so"), Hint: "run make ort"})
	require.NoError(t, err)
	_, err = nn.Load(context.Background(), host.NNONNX, host.NNCPU, [][]byte{fashionmnist.Model()})
	require.ErrorIs(t, err, host.ErrNNUnsupported)
	assert.Contains(t, err.Error(), "run make ort")
}

func TestFindLibrary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "mlperf-host")
	assert.Empty(t, FindLibrary(exe))
	installed := filepath.Join(dir, "plugins", "onnx-ort", ortnn.DefaultLibrary)
	require.NoError(t, os.MkdirAll(filepath.Dir(installed), 0o755))
	require.NoError(t, os.WriteFile(installed, nil, 0o644))
	assert.Equal(t, installed, FindLibrary(exe))
	beside := filepath.Join(dir, ortnn.DefaultLibrary)
	require.NoError(t, os.WriteFile(beside, nil, 0o644))
	assert.Equal(t, beside, FindLibrary(exe), "beside the binary first")
	assert.Empty(t, FindLibrary(""))
}
