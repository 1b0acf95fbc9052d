//go:build wasm && !purego

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Winograd tolerances, relative to the largest output magnitude. The
// transforms add rounding the direct convolution does not have, growing
// with the transform matrices' entries (Bᵀ and Aᵀ of F(4×4, 3×3) reach
// 5 and 8, G has 1/6 and 1/24; F(2×2, 3×3)'s are at most 1) and with the
// number of input channels summed per frequency. Measured on the cases
// below (inputs and weights uniform in [-0.5, 0.5)): F(2×2) stays under
// 2.5e-7 · sqrt(C), F(4×4) under 7e-7 · sqrt(C) of the output's largest
// magnitude (the float32 epsilon is 1.2e-7); the tolerances allow 4×.
func winogradTol(m, c int) float64 {
	if m == 4 {
		return 3e-6 * math.Sqrt(float64(c))
	}
	return 1e-6 * math.Sqrt(float64(c))
}

func sq3(c, h, w, m, pt, pl, pb, pr int) ConvShape {
	return ConvShape{C: c, H: h, W: w, M: m, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1,
		PadT: pt, PadL: pl, PadB: pb, PadR: pr, Group: 1}
}

// runConv convolves with a fresh pool of one thread.
func runConv(t *testing.T, g *Gemm, s ConvShape, n int, x, w, bias, res []float32, act Activation) ([]float32, *Conv) {
	t.Helper()
	conv, err := NewConv(g, s, w, bias, act)
	require.NoError(t, err)
	pool := NewPool(1)
	defer pool.Close()
	y := make([]float32, n*s.M*s.OutH()*s.OutW())
	for i := range y {
		y[i] = float32(math.NaN()) // every element must be written
	}
	conv.Run(pool, n, x, y, res)
	return y, conv
}

func TestSIMDWinogradMatchesDirect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		s      ConvShape
		n      int
		res    bool
		noBias bool
		act    Activation
	}{
		{name: "same padding, residual, relu", s: sq3(16, 14, 14, 24, 1, 1, 1, 1), n: 2, res: true, act: Relu()},
		{name: "no padding, odd plane, odd channels", s: sq3(20, 9, 11, 13, 0, 0, 0, 0), n: 1, act: Clip(0, 6)},
		{name: "asymmetric padding, partial tiles", s: sq3(33, 7, 7, 17, 0, 2, 2, 0), n: 3, res: true},
		{name: "deep input (K blocks)", s: sq3(300, 5, 6, 9, 1, 1, 1, 1), n: 1, act: Relu()},
		{name: "one pixel", s: sq3(8, 1, 1, 8, 1, 1, 1, 1), n: 2, noBias: true},
		{name: "many blocks", s: sq3(16, 30, 29, 16, 1, 1, 1, 1), n: 2, res: true, act: Relu()},
		{name: "wide padding", s: sq3(12, 4, 5, 5, 2, 3, 2, 1), n: 2, act: Clip(-0.2, 0.3)},
	}
	for _, tt := range tests {
		for _, mode := range []WinogradMode{WinogradF2, WinogradF4} {
			m := map[WinogradMode]int{WinogradF2: 2, WinogradF4: 4}[mode]
			t.Run(fmt.Sprintf("%s/F%d", tt.name, m), func(t *testing.T) {
				t.Parallel()
				s := tt.s
				r := rand.New(rand.NewPCG(uint64(s.C), uint64(s.M)))
				x := centered(r, tt.n*s.C*s.H*s.W)
				w := centered(r, s.M*s.C*9)
				var bias, res []float32
				if !tt.noBias {
					bias = centered(r, s.M)
				}
				if tt.res {
					res = centered(r, tt.n*s.M*s.OutH()*s.OutW())
				}
				want, _ := runConv(t, NewGemm(), s, tt.n, x, w, bias, res, tt.act)
				got, conv := runConv(t, BestGemm().WithWinograd(mode), s, tt.n, x, w, bias, res, tt.act)
				require.NotNil(t, conv.wino, "the convolution did not take the Winograd path")
				require.Equal(t, m, conv.wino.m)
				var top, worst float64
				for i := range want {
					top = max(top, math.Abs(float64(want[i])))
					worst = max(worst, math.Abs(float64(want[i]-got[i])))
				}
				t.Logf("max error %.3g of max |y| %.3g: %.3g relative, %.3g per sqrt(C)", worst, top, worst/top,
					worst/top/math.Sqrt(float64(s.C)))
				requireClose(t, want, got, winogradTol(m, s.C)*top)
			})
		}
	}
}

// TestSIMDWinogradDispatch: auto takes Winograd F(4×4) for 3×3 stride-1
// convolutions of one group, off and the other shapes keep the GEMM.
func TestSIMDWinogradDispatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    ConvShape
		mode WinogradMode
		want int // 0: the GEMM
	}{
		{name: "resnet 56x56", s: sq3(64, 56, 56, 64, 1, 1, 1, 1), want: 4},
		{name: "resnet 14x14", s: sq3(256, 14, 14, 256, 1, 1, 1, 1), want: 4},
		{name: "resnet 7x7", s: sq3(512, 7, 7, 512, 1, 1, 1, 1), want: 4},
		{name: "off", s: sq3(64, 56, 56, 64, 1, 1, 1, 1), mode: WinogradOff},
		{name: "one input channel", s: sq3(1, 32, 32, 64, 1, 1, 1, 1), want: 4},
		{name: "few output channels", s: sq3(64, 32, 32, 3, 1, 1, 1, 1), want: 4},
		{name: "few channels forced", s: sq3(3, 32, 32, 8, 1, 1, 1, 1), mode: WinogradF2, want: 2},
		{name: "stride 2", s: ConvShape{C: 64, H: 56, W: 56, M: 64, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 1}, mode: WinogradF4},
		{name: "dilated", s: ConvShape{C: 64, H: 56, W: 56, M: 64, KH: 3, KW: 3, SH: 1, SW: 1, DH: 2, DW: 2, PadT: 2, PadL: 2, PadB: 2, PadR: 2, Group: 1}, mode: WinogradF4},
		{name: "grouped", s: ConvShape{C: 64, H: 56, W: 56, M: 64, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 2}, mode: WinogradF4},
		{name: "1x1", s: ConvShape{C: 64, H: 56, W: 56, M: 64, KH: 1, KW: 1, SH: 1, SW: 1, DH: 1, DW: 1, Group: 1}, mode: WinogradF4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := make([]float32, tt.s.M*tt.s.C/tt.s.Group*tt.s.KH*tt.s.KW)
			conv, err := NewConv(BestGemm().WithWinograd(tt.mode), tt.s, w, nil, Activation{})
			require.NoError(t, err)
			if tt.want == 0 {
				assert.Nil(t, conv.wino)
				return
			}
			require.NotNil(t, conv.wino)
			assert.Equal(t, tt.want, conv.wino.m)
			assert.Zero(t, conv.wino.nt%12)
		})
	}
}

// BenchmarkSIMDWinograd: ResNet-50's 3×3 stride-1 convolutions and a few
// with few channels (the Fashion-MNIST CNN's 16 to 32 on 14×14 among
// them) on the GEMM and as Winograd F(2×2) and F(4×4), and the tile block
// sizes, in wazero (make onnx-wasm-bench-winograd).
func BenchmarkSIMDWinograd(b *testing.B) {
	shapes := []ConvShape{sq3(64, 56, 56, 64, 1, 1, 1, 1), sq3(128, 28, 28, 128, 1, 1, 1, 1),
		sq3(256, 14, 14, 256, 1, 1, 1, 1), sq3(512, 7, 7, 512, 1, 1, 1, 1),
		sq3(1, 28, 28, 16, 1, 1, 1, 1), sq3(3, 56, 56, 32, 1, 1, 1, 1), sq3(4, 28, 28, 4, 1, 1, 1, 1), sq3(8, 28, 28, 8, 1, 1, 1, 1),
		sq3(16, 14, 14, 32, 1, 1, 1, 1)}
	for _, s := range shapes {
		for _, n := range []int{1, 8} {
			if s.C < 16 && n > 1 {
				continue
			}
			r := rand.New(rand.NewPCG(1, 2))
			x := centered(r, n*s.C*s.H*s.W)
			w := centered(r, s.M*s.C*9)
			y := make([]float32, n*s.M*s.OutH()*s.OutW())
			for _, v := range []struct {
				mode WinogradMode
				nt   int
			}{{WinogradOff, 0}, {WinogradF2, 12}, {WinogradF2, 24}, {WinogradF2, 48}, {WinogradF2, 96},
				{WinogradF4, 12}, {WinogradF4, 24}, {WinogradF4, 48}, {WinogradF4, 96}} {
				conv, err := NewConv(BestGemm().WithWinograd(v.mode), s, w, nil, Relu())
				require.NoError(b, err)
				name := "gemm"
				if conv.wino != nil {
					if v.nt != 0 {
						conv.wino.nt = v.nt
					}
					name = fmt.Sprintf("F%d-nt%d", conv.wino.m, conv.wino.nt)
				}
				b.Run(fmt.Sprintf("%dx%dx%d/b%d/%s", s.C, s.H, s.W, n, name), func(b *testing.B) {
					pool := NewPool(1)
					defer pool.Close()
					b.ReportAllocs()
					for b.Loop() {
						conv.Run(pool, n, x, y, nil)
					}
					b.ReportMetric(float64(2*n*s.M*s.C*9*s.OutH()*s.OutW())*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// TestSIMDWinogradRejectsBadRanges: the winograd kernel returns its status
// for ranges outside memory and bad sizes, and touches nothing.
func TestSIMDWinogradRejectsBadRanges(t *testing.T) {
	t.Parallel()
	var sc simdScratch
	x := make([]float32, 16*8*2+64)
	y := make([]float32, 64)
	floats := sc.floatsN(int(simdWinoScratchLen(1, 2, 4, 4, 4, 2, 12)))
	outside := uint32(0xffff_fff0)
	valid := simdWinoDesc{n: 1, cin: 2, h: 4, w: 4, cout: 4, oh: 4, ow: 4, padT: 1, padL: 1, m: 2, nt: 12,
		x: addr(x), u: addr(x), y: addr(y), bias: addr(x), scratch: addr(floats), scratchLen: int32(len(floats))}
	tests := []struct {
		name string
		edit func(d *simdWinoDesc)
		want int32
	}{
		{name: "valid", edit: func(*simdWinoDesc) {}, want: 0},
		{name: "valid F4", edit: func(d *simdWinoDesc) { d.m = 4 }, want: 2}, // needs a larger scratch
		{name: "input outside", edit: func(d *simdWinoDesc) { d.x = outside }, want: 1},
		{name: "weights outside", edit: func(d *simdWinoDesc) { d.u = outside }, want: 1},
		{name: "output outside", edit: func(d *simdWinoDesc) { d.y = outside }, want: 1},
		{name: "residual outside", edit: func(d *simdWinoDesc) { d.res = outside }, want: 1},
		{name: "bias outside", edit: func(d *simdWinoDesc) { d.bias = outside }, want: 1},
		{name: "scratch outside", edit: func(d *simdWinoDesc) { d.scratch = outside &^ 15 }, want: 1},
		{name: "output over the scratch", edit: func(d *simdWinoDesc) { d.y = d.scratch }, want: 1},
		{name: "planes overflow", edit: func(d *simdWinoDesc) { d.n, d.cin = 1<<20, 1<<20 }, want: 2},
		{name: "small scratch", edit: func(d *simdWinoDesc) { d.scratchLen = 64 }, want: 2},
		{name: "tile 3", edit: func(d *simdWinoDesc) { d.m = 3 }, want: 2},
		{name: "block not whole 12s", edit: func(d *simdWinoDesc) { d.nt = 18 }, want: 2},
		{name: "negative padding", edit: func(d *simdWinoDesc) { d.padL = -1 }, want: 2},
		{name: "unknown activation", edit: func(d *simdWinoDesc) { d.act = 7 }, want: 2},
	}
	for _, tt := range tests {
		d := valid
		tt.edit(&d)
		assert.Equal(t, tt.want, simdWinograd(unsafe.Pointer(&d)), tt.name)
	}
	assert.Equal(t, int32(-1), simdWinoScratchLen(1, 2, 4, 4, 4, 2, 100), "block past 96")
}
