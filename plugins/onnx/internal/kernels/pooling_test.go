package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMaxPool(t *testing.T) {
	t.Parallel()
	// 1×1×4×4 input 0..15, 2×2 window, stride 2.
	x := make([]float32, 16)
	for i := range x {
		x[i] = float32(i)
	}
	tests := []struct {
		name string
		s    PoolShape
		want []float32
	}{
		{name: "2x2 s2", s: PoolShape{C: 1, H: 4, W: 4, KH: 2, KW: 2, SH: 2, SW: 2, DH: 1, DW: 1, OH: 2, OW: 2}, want: []float32{5, 7, 13, 15}},
		{name: "3x3 s2 pad1", s: PoolShape{C: 1, H: 4, W: 4, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, OH: 2, OW: 2}, want: []float32{5, 7, 13, 15}},
		{name: "dilated", s: PoolShape{C: 1, H: 4, W: 4, KH: 2, KW: 2, SH: 1, SW: 1, DH: 2, DW: 2, OH: 2, OW: 2}, want: []float32{10, 11, 14, 15}},
		// ceil_mode: the last window starts inside and is clipped.
		{name: "ceil clipped", s: PoolShape{C: 1, H: 4, W: 4, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, OH: 2, OW: 2}, want: []float32{10, 11, 14, 15}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			y := make([]float32, len(tt.want))
			task := PoolTask{Kind: MaxPool, Shape: tt.s, X: x, Y: y}
			task.Run(0, nil)
			assert.Equal(t, tt.want, y)
		})
	}
}

func TestAvgPool(t *testing.T) {
	t.Parallel()
	x := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9} // 3×3
	tests := []struct {
		name string
		s    PoolShape
		want []float32
	}{
		{name: "exclude pad", s: PoolShape{C: 1, H: 3, W: 3, KH: 2, KW: 2, SH: 2, SW: 2, PadT: 1, PadL: 1, OH: 2, OW: 2},
			want: []float32{1, 2.5, 5.5, 7}},
		{name: "include pad", s: PoolShape{C: 1, H: 3, W: 3, KH: 2, KW: 2, SH: 2, SW: 2, PadT: 1, PadL: 1, OH: 2, OW: 2, CountIncludePad: true},
			want: []float32{0.25, 1.25, 2.75, 7}},
		{name: "3x3 all", s: PoolShape{C: 1, H: 3, W: 3, KH: 3, KW: 3, SH: 1, SW: 1, OH: 1, OW: 1}, want: []float32{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			y := make([]float32, len(tt.want))
			task := PoolTask{Kind: AvgPool, Shape: tt.s, X: x, Y: y}
			task.Run(0, nil)
			assert.InDeltaSlice(t, tt.want, y, 1e-6)
		})
	}
}

func TestPoolOnPool(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	const planes = 7
	x := randSlice(r, planes*25)
	x[3] = float32(math.NaN())
	y := make([]float32, planes)
	pool := NewPool(3)
	defer pool.Close()
	pool.For(planes, &GlobalAvgTask{Size: 25, X: x, Y: y})
	assert.True(t, math.IsNaN(float64(y[0])))
	for p := 1; p < planes; p++ {
		var sum float64
		for _, v := range x[p*25 : (p+1)*25] {
			sum += float64(v)
		}
		require.InDelta(t, sum/25, y[p], 1e-5)
	}
	m := make([]float32, planes)
	pool.For(planes, &PoolTask{Kind: MaxPool, Shape: PoolShape{C: planes, H: 5, W: 5, KH: 5, KW: 5, SH: 1, SW: 1, DH: 1, DW: 1, OH: 1, OW: 1}, X: x, Y: m})
	assert.True(t, math.IsNaN(float64(m[0])), "max pooling propagates NaN")
}
