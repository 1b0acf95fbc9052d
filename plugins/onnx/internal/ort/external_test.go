//go:build linux || darwin

package ort

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// gemmGraph is x[N,4]·w[4,3]+b[3].
func gemmGraph() *onnxpb.Model {
	w := make([]float32, 12)
	for i := range w {
		w[i] = float32(i)/8 - 0.7
	}
	return &onnxpb.Model{
		IRVersion: 8, Opsets: []onnxpb.Opset{{Version: 13}}, HasGraph: true,
		Graph: onnxpb.Graph{
			Name:  "gemm",
			Nodes: []onnxpb.Node{node("Gemm", []string{"x", "w", "b"}, []string{"y"})},
			Initializers: []onnxpb.Tensor{
				onnxpb.FloatTensor("w", []int64{4, 3}, w),
				onnxpb.FloatTensor("b", []int64{3}, []float32{0.5, -1, 2}),
			},
			Inputs:  []onnxpb.ValueInfo{onnxpb.TensorInfo("x", onnxpb.Float, -1, 4)},
			Outputs: []onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.Float, -1, 3)},
		},
	}
}

// TestExternalData checks that ONNX Runtime reads a model's external data
// from the model's directory (not the working directory: the
// AddSessionConfigEntry entry works), giving the outputs of the same model
// with its weights inline, and that a data file that cannot serve fails
// Load before ONNX Runtime reads anything, naming the tensor and file.
func TestExternalData(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	inline := onnxpb.Encode(gemmGraph())
	m := gemmGraph()
	data := onnxpb.Externalize(m, "model.onnx_data", 0)
	external := onnxpb.Encode(m)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx_data"), data, 0o600))

	run := func(s engine.Session) engine.Tensor {
		x := []float32{1, 2, 3, 4, -1, 0.5, 0.25, 8}
		out := make([]engine.Tensor, 1)
		require.NoError(t, s.Run(context.Background(), []engine.Tensor{{Name: "x", DType: engine.Float32, Shape: []int64{2, 4}, Data: f32Bytes(x)}}, out))
		return out[0]
	}
	want := run(load(t, e, inline, engine.Options{Threads: 1}))
	got := run(load(t, e, external, engine.Options{Threads: 1, ModelDir: dir}))
	assert.Equal(t, want.Shape, got.Shape)
	assert.Equal(t, bytesF32(want.Data), bytesF32(got.Data), "the same weights give the same bits")

	short := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(short, "model.onnx_data"), data[:50], 0o600))
	escape := gemmGraph()
	onnxpb.Externalize(escape, "../model.onnx_data", 0)
	tests := []struct {
		name     string
		model    []byte
		dir      string
		mentions string
	}{
		{name: "given as bytes", model: external, mentions: `tensor "w": file "model.onnx_data": the model came as bytes`},
		{name: "missing file", model: external, dir: t.TempDir(), mentions: `tensor "w": file "model.onnx_data"`},
		{name: "short file", model: external, dir: short, mentions: `tensor "b": file "model.onnx_data": the file holds 50 bytes`},
		{name: "outside the directory", model: onnxpb.Encode(escape), dir: filepath.Join(dir, "."), mentions: "leaves the model's directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := e.Load(context.Background(), tt.model, engine.Options{ModelDir: tt.dir})
			require.ErrorIs(t, err, engine.ErrInvalidModel)
			require.ErrorIs(t, err, onnxpb.ErrExternalData)
			assert.Contains(t, err.Error(), tt.mentions)
		})
	}
}
