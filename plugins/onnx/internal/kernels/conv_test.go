package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// refConv is the direct definition of a grouped, dilated, padded
// convolution.
func refConv(s ConvShape, n int, x, w, bias, res []float32, act Activation) []float32 {
	oh, ow := s.OutH(), s.OutW()
	cg, mg := s.C/s.Group, s.M/s.Group
	y := make([]float32, n*s.M*oh*ow)
	for b := range n {
		for m := range s.M {
			g := m / mg
			for oy := range oh {
				for ox := range ow {
					var sum float64
					if bias != nil {
						sum = float64(bias[m])
					}
					for c := range cg {
						for ky := range s.KH {
							for kx := range s.KW {
								iy := oy*s.SH + ky*s.DH - s.PadT
								ix := ox*s.SW + kx*s.DW - s.PadL
								if iy < 0 || iy >= s.H || ix < 0 || ix >= s.W {
									continue
								}
								xv := x[((b*s.C+g*cg+c)*s.H+iy)*s.W+ix]
								wv := w[((m*cg+c)*s.KH+ky)*s.KW+kx]
								sum += float64(xv) * float64(wv)
							}
						}
					}
					idx := ((b*s.M+m)*oh+oy)*ow + ox
					if res != nil {
						sum += float64(res[idx])
					}
					y[idx] = act.one(float32(sum))
				}
			}
		}
	}
	return y
}

func TestConv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		s       ConvShape
		n       int
		bias    bool
		res     bool
		act     Activation
		threads int
	}{
		{name: "3x3 pad1", s: ConvShape{C: 3, H: 8, W: 9, M: 5, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 1}, n: 2, bias: true},
		{name: "7x7 stride2 pad3", s: ConvShape{C: 3, H: 17, W: 16, M: 8, KH: 7, KW: 7, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 3, PadL: 3, PadB: 3, PadR: 3, Group: 1}, n: 1, bias: true, act: Relu()},
		{name: "pointwise", s: ConvShape{C: 16, H: 5, W: 5, M: 24, KH: 1, KW: 1, SH: 1, SW: 1, DH: 1, DW: 1, Group: 1}, n: 3, bias: true, res: true, act: Relu()},
		{name: "1x1 stride2", s: ConvShape{C: 8, H: 9, W: 9, M: 4, KH: 1, KW: 1, SH: 2, SW: 2, DH: 1, DW: 1, Group: 1}, n: 1},
		{name: "asymmetric pads", s: ConvShape{C: 2, H: 6, W: 7, M: 3, KH: 3, KW: 2, SH: 2, SW: 1, DH: 1, DW: 1, PadT: 0, PadL: 1, PadB: 2, PadR: 0, Group: 1}, n: 2},
		{name: "dilated", s: ConvShape{C: 2, H: 10, W: 10, M: 3, KH: 3, KW: 3, SH: 1, SW: 1, DH: 2, DW: 3, PadT: 2, PadL: 3, PadB: 2, PadR: 3, Group: 1}, n: 1, bias: true},
		{name: "groups", s: ConvShape{C: 6, H: 7, W: 7, M: 9, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 3}, n: 2, bias: true},
		{name: "depthwise 3x3", s: ConvShape{C: 8, H: 9, W: 11, M: 8, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 8}, n: 2, bias: true, act: Clip(0, 6)},
		{name: "depthwise stride2 residual", s: ConvShape{C: 4, H: 10, W: 9, M: 4, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 1, PadL: 0, PadB: 1, PadR: 2, Group: 4}, n: 2, res: true},
		{name: "depthwise dilated 5x5", s: ConvShape{C: 3, H: 12, W: 12, M: 3, KH: 5, KW: 5, SH: 1, SW: 2, DH: 2, DW: 1, PadT: 4, PadL: 2, PadB: 4, PadR: 2, Group: 3}, n: 1},
		{name: "depthwise wide rows", s: ConvShape{C: 3, H: 5, W: 70, M: 3, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 3}, n: 2, bias: true, act: Clip(-0.5, 0.5)},
		{name: "depthwise wide rows relu no pad", s: ConvShape{C: 2, H: 4, W: 53, M: 2, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, Group: 2}, n: 1, act: Relu()},
		{name: "depth multiplier 2", s: ConvShape{C: 3, H: 6, W: 6, M: 6, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 3}, n: 1},
		{name: "wide threaded", s: ConvShape{C: 16, H: 20, W: 20, M: 40, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 1}, n: 3, bias: true, threads: 3, act: Relu()},
	}
	for kname, g := range gemms() {
		for _, tt := range tests {
			t.Run(kname+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				s := tt.s
				r := rand.New(rand.NewPCG(uint64(s.C), uint64(s.M)))
				x := randSlice(r, tt.n*s.C*s.H*s.W)
				w := randSlice(r, s.M*s.C/s.Group*s.KH*s.KW)
				var bias, res []float32
				if tt.bias {
					bias = randSlice(r, s.M)
				}
				if tt.res {
					res = randSlice(r, tt.n*s.M*s.OutH()*s.OutW())
				}
				want := refConv(s, tt.n, x, w, bias, res, tt.act)
				conv, err := NewConv(g, s, w, bias, tt.act)
				require.NoError(t, err)
				pool := NewPool(max(tt.threads, 1))
				defer pool.Close()
				got := make([]float32, len(want))
				conv.Run(pool, tt.n, x, got, res)
				requireClose(t, want, got, 1e-4)
				// A second run over the same buffers must give the same
				// answer (no state leaks between runs).
				conv.Run(pool, tt.n, x, got, res)
				requireClose(t, want, got, 1e-4)
			})
		}
	}
}

func TestConvShapeErrors(t *testing.T) {
	t.Parallel()
	ok := ConvShape{C: 4, H: 5, W: 5, M: 4, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, Group: 1}
	tests := []struct {
		name string
		edit func(*ConvShape)
	}{
		{name: "zero stride", edit: func(s *ConvShape) { s.SH = 0 }},
		{name: "negative pad", edit: func(s *ConvShape) { s.PadL = -1 }},
		{name: "bad groups", edit: func(s *ConvShape) { s.Group = 3 }},
		{name: "kernel too big", edit: func(s *ConvShape) { s.KH = 9 }},
		{name: "no channels", edit: func(s *ConvShape) { s.C = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := ok
			tt.edit(&s)
			_, err := NewConv(NewGemm(), s, make([]float32, 4*4*9), nil, Activation{})
			require.ErrorIs(t, err, ErrConvShape)
		})
	}
	_, err := NewConv(NewGemm(), ok, make([]float32, 3), nil, Activation{})
	require.ErrorIs(t, err, ErrConvShape)
}

func BenchmarkConv(b *testing.B) {
	shapes := []struct {
		name string
		s    ConvShape
	}{
		{"resnet-stem-7x7s2", ConvShape{C: 3, H: 224, W: 224, M: 64, KH: 7, KW: 7, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 3, PadL: 3, PadB: 3, PadR: 3, Group: 1}},
		{"resnet-3x3-56", ConvShape{C: 64, H: 56, W: 56, M: 64, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 1}},
		{"resnet-1x1-56", ConvShape{C: 64, H: 56, W: 56, M: 256, KH: 1, KW: 1, SH: 1, SW: 1, DH: 1, DW: 1, Group: 1}},
		{"mobilenet-dw-3x3-s1-56", ConvShape{C: 144, H: 56, W: 56, M: 144, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 144}},
		{"mobilenet-dw-3x3-112", ConvShape{C: 96, H: 112, W: 112, M: 96, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 96}},
	}
	for kname, g := range gemms() {
		for _, sh := range shapes {
			b.Run(fmt.Sprintf("%s/%s", kname, sh.name), func(b *testing.B) {
				s := sh.s
				r := rand.New(rand.NewPCG(1, 1))
				x := randSlice(r, s.C*s.H*s.W)
				w := randSlice(r, s.M*s.C/s.Group*s.KH*s.KW)
				conv, err := NewConv(g, s, w, randSlice(r, s.M), Relu())
				require.NoError(b, err)
				y := make([]float32, s.M*s.OutH()*s.OutW())
				pool := NewPool(1)
				defer pool.Close()
				b.ReportAllocs()
				for b.Loop() {
					conv.Run(pool, 1, x, y, nil)
				}
				flops := 2 * float64(s.M*s.OutH()*s.OutW()) * float64(s.C/s.Group*s.KH*s.KW)
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
