package goengine

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

func int64Bytes(v ...int64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

// TestGatherElements: ONNX's examples (axis 1 of a 2×2; axis 0 of a 3×3
// with a negative index) and a 3-D case, the indices an input fed at run
// time; an index out of range fails the run, naming the node.
func TestGatherElements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		axis      int64
		x         []float32
		xs, is    []int64
		idx       []int64
		want      []float32
		wantShape []int64
	}{
		{name: "axis 1", axis: 1, x: []float32{1, 2, 3, 4}, xs: []int64{2, 2}, idx: []int64{0, 0, 1, 0}, is: []int64{2, 2},
			want: []float32{1, 1, 4, 3}, wantShape: []int64{2, 2}},
		{name: "axis 0, negative", axis: 0, x: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, xs: []int64{3, 3}, idx: []int64{1, 2, 0, 2, -3, -1}, is: []int64{2, 3},
			want: []float32{4, 8, 3, 7, 2, 9}, wantShape: []int64{2, 3}},
		// Rows of a [1, nodes, 1] picked by [1, edges, 1]: the messages
		// of a graph's edges.
		{name: "rows of 3-D", axis: 1, x: []float32{10, 20, 30}, xs: []int64{1, 3, 1}, idx: []int64{2, 2, 0, 1}, is: []int64{1, 4, 1},
			want: []float32{30, 30, 10, 20}, wantShape: []int64{1, 4, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			free := func(n int) []int64 {
				d := make([]int64, n)
				for i := range d {
					d[i] = -1
				}
				return d
			}
			m := model([]onnxpb.Node{nd("GatherElements", []string{"x", "i"}, []string{"y"}, onnxpb.IntAttr("axis", tt.axis))}, nil,
				[]onnxpb.ValueInfo{floatInfo("x", free(len(tt.xs))...), onnxpb.TensorInfo("i", onnxpb.Int64, free(len(tt.is))...)},
				[]onnxpb.ValueInfo{floatInfo("y", free(len(tt.is))...)})
			s := load(t, m, engine.Options{})
			outs := make([]engine.Tensor, 1)
			require.NoError(t, s.Run(context.Background(), []engine.Tensor{
				{Name: "x", DType: engine.Float32, Shape: tt.xs, Data: floatBytes(tt.x)},
				{Name: "i", DType: engine.Int64, Shape: tt.is, Data: int64Bytes(tt.idx...)},
			}, outs))
			assert.Equal(t, tt.wantShape, outs[0].Shape)
			assert.Equal(t, tt.want, bytesFloats(outs[0].Data))
			err := s.Run(context.Background(), []engine.Tensor{
				{Name: "x", DType: engine.Float32, Shape: tt.xs, Data: floatBytes(tt.x)},
				{Name: "i", DType: engine.Int64, Shape: tt.is, Data: int64Bytes(append([]int64{99}, tt.idx[1:]...)...)},
			}, outs)
			require.ErrorIs(t, err, engine.ErrInput)
			assert.ErrorContains(t, err, "(GatherElements): bad run tensors: index 99 of dimension")
		})
	}
}
