package wasinn

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	ins, outs, err := describe(fashionmnist.Model())
	require.NoError(t, err)
	require.Len(t, ins, 1)
	assert.Equal(t, engine.Uint8, ins[0].DType)
	assert.Equal(t, int64(-1), ins[0].Shape[0], "the batch is free")
	require.NotEmpty(t, outs)

	_, _, err = describe([]byte("not onnx"))
	require.ErrorIs(t, err, engine.ErrInvalidModel)
}

func TestOutputShape(t *testing.T) {
	t.Parallel()
	f32 := func(shape ...int64) engine.TensorDesc {
		return engine.TensorDesc{Name: "y", DType: engine.Float32, Shape: shape}
	}
	tests := []struct {
		name  string
		d     engine.TensorDesc
		bytes int
		batch int
		want  []int64
		err   bool
	}{
		{name: "batch free", d: f32(-1, 10), bytes: 3 * 10 * 4, batch: 3, want: []int64{3, 10}},
		{name: "fixed", d: f32(2, 5), bytes: 40, batch: 2, want: []int64{2, 5}},
		{name: "fixed, wrong size", d: f32(2, 5), bytes: 44, batch: 2, err: true},
		{name: "no shape", d: f32(), bytes: 8 * 4 * 6, batch: 8, want: []int64{8, 6}},
		{name: "no shape, uneven", d: f32(), bytes: 4 * 7, batch: 2, err: true},
		{name: "two free: batch first", d: f32(-1, -1), bytes: 4 * 4 * 9, batch: 4, want: []int64{4, 9}},
		{name: "three free", d: f32(-1, -1, -1), bytes: 16, batch: 1, err: true},
		{name: "partial element", d: f32(-1), bytes: 6, batch: 1, err: true},
		{name: "scalar class", d: engine.TensorDesc{Name: "c", DType: engine.Int64, Shape: []int64{-1}}, bytes: 5 * 8, batch: 5, want: []int64{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := outputShape([]int64{9, 9, 9, 9, 9, 9}, tt.d, tt.bytes, tt.batch)
			if tt.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
