package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestElements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		shape []int64
		want  int
	}{
		{name: "scalar", shape: nil, want: 1},
		{name: "image", shape: []int64{2, 1, 28, 28}, want: 1568},
		{name: "zero dim", shape: []int64{3, 0, 5}, want: 0},
		{name: "negative", shape: []int64{1, -1}, want: -1},
		{name: "overflow", shape: []int64{1 << 40, 1 << 40}, want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Elements(tt.shape))
		})
	}
}

func TestDescCheck(t *testing.T) {
	t.Parallel()
	desc := TensorDesc{Name: "x", DType: Float32, Shape: []int64{-1, 3}}
	tests := []struct {
		name   string
		tensor Tensor
		max    int
		ok     bool
	}{
		{name: "ok", tensor: Tensor{DType: Float32, Shape: []int64{2, 3}, Data: make([]byte, 24)}, max: 4, ok: true},
		{name: "unbounded batch", tensor: Tensor{DType: Float32, Shape: []int64{9, 3}, Data: make([]byte, 108)}, ok: true},
		{name: "dtype", tensor: Tensor{DType: Int64, Shape: []int64{2, 3}, Data: make([]byte, 48)}},
		{name: "rank", tensor: Tensor{DType: Float32, Shape: []int64{6}, Data: make([]byte, 24)}},
		{name: "fixed dim", tensor: Tensor{DType: Float32, Shape: []int64{2, 4}, Data: make([]byte, 32)}},
		{name: "batch over max", tensor: Tensor{DType: Float32, Shape: []int64{5, 3}, Data: make([]byte, 60)}, max: 4},
		{name: "batch zero", tensor: Tensor{DType: Float32, Shape: []int64{0, 3}}},
		{name: "short data", tensor: Tensor{DType: Float32, Shape: []int64{2, 3}, Data: make([]byte, 23)}},
		{name: "long data", tensor: Tensor{DType: Float32, Shape: []int64{2, 3}, Data: make([]byte, 28)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := desc.Check(tt.tensor, tt.max)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInput)
		})
	}
}

func TestDescString(t *testing.T) {
	t.Parallel()
	d := TensorDesc{Name: "logits", DType: Float32, Shape: []int64{-1, 10}}
	assert.Equal(t, "logits:float[?,10]", d.String())
	assert.Equal(t, "dtype(99)", DType(99).String())
	assert.Equal(t, 8, Int64.Size())
}
