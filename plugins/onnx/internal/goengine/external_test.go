package goengine

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// gemmModel is x[N,4]·w[4,3]+b[3] with random weights, a Constant node's
// tensor attribute added to the result.
func gemmModel() *onnxpb.Model {
	r := rand.New(rand.NewPCG(1, 2))
	return &onnxpb.Model{
		IRVersion: 8, Opsets: []onnxpb.Opset{{Version: 13}}, HasGraph: true,
		Graph: onnxpb.Graph{
			Name: "gemm",
			Nodes: []onnxpb.Node{
				nd("Gemm", []string{"x", "w", "b"}, []string{"g"}),
				nd("Constant", nil, []string{"k"}, onnxpb.TensorAttr("value", onnxpb.FloatTensor("k", []int64{3}, randFloats(r, 3)))),
				nd("Add", []string{"g", "k"}, []string{"y"}),
			},
			Initializers: []onnxpb.Tensor{
				onnxpb.FloatTensor("w", []int64{4, 3}, randFloats(r, 12)),
				onnxpb.FloatTensor("b", []int64{3}, randFloats(r, 3)),
			},
			Inputs:  []onnxpb.ValueInfo{floatInfo("x", -1, 4)},
			Outputs: []onnxpb.ValueInfo{floatInfo("y", -1, 3)},
		},
	}
}

// TestExternalData checks that a model whose weights lie in a file beside
// it gives the outputs of the same model with its weights inline, and
// that a data file the engine cannot use fails Load naming the tensor
// and the file.
func TestExternalData(t *testing.T) {
	t.Parallel()
	inline := onnxpb.Encode(gemmModel())
	m := gemmModel()
	data := onnxpb.Externalize(m, "weights/model.onnx_data", 0)
	// The Constant's tensor goes external too, after the initializers.
	k := m.Graph.Nodes[1].Attrs[0].T
	k.ExternalData = onnxpb.ExternalData{Location: "weights/model.onnx_data", Offset: int64(len(data))}
	data = append(data, k.Raw...)
	k.Raw, k.HasRaw, k.External = nil, false, true
	external := onnxpb.Encode(m)

	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "weights"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "weights", "model.onnx_data"), data, 0o600))

	x := randFloats(rand.New(rand.NewPCG(3, 4)), 8)
	wantShape, want := runFloat(t, load(t, inline, engine.Options{}), []int64{2, 4}, x)
	gotShape, got := runFloat(t, load(t, external, engine.Options{ModelDir: dir}), []int64{2, 4}, x)
	assert.Equal(t, wantShape, gotShape)
	assert.Equal(t, want, got, "the same weights give the same bits")

	short := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(short, "weights"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(short, "weights", "model.onnx_data"), data[:50], 0o600))
	tests := []struct {
		name     string
		dir      string
		mentions string
	}{
		{name: "given as bytes", dir: "", mentions: `tensor "w": file "weights/model.onnx_data": the model came as bytes`},
		{name: "missing file", dir: t.TempDir(), mentions: `tensor "w": file "weights/model.onnx_data"`},
		{name: "short file", dir: short, mentions: `tensor "b": file "weights/model.onnx_data": the file holds 50 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New().Load(context.Background(), external, engine.Options{ModelDir: tt.dir})
			require.ErrorIs(t, err, engine.ErrInvalidModel)
			require.ErrorIs(t, err, onnxpb.ErrExternalData)
			assert.Contains(t, err.Error(), tt.mentions)
		})
	}
}
