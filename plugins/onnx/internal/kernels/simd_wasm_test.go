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

// The SIMD kernels against the portable Go kernels, both compiled to WASM
// (make onnx-wasm-test links the SIMD module in). The pointwise cases
// take both A layouts (splatPointwise). Tolerances: the
// depthwise kernel sums in the portable kernel's order and must match it
// exactly; the GEMM sums each output over K in a different order (blocks
// of 256, two k steps at a time), so outputs of inputs in [-0.5, 0.5) may
// differ by 1e-5·K.

func TestSIMDConvMatchesPortable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    ConvShape
		n    int
		res  bool
		act  Activation
	}{
		{name: "resnet 3x3", s: ConvShape{C: 16, H: 14, W: 14, M: 24, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 1}, n: 2, act: Relu()},
		{name: "resnet stem 7x7 s2", s: ConvShape{C: 3, H: 30, W: 30, M: 16, KH: 7, KW: 7, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 3, PadL: 3, PadB: 3, PadR: 3, Group: 1}, n: 1, act: Relu()},
		{name: "pointwise residual", s: ConvShape{C: 40, H: 7, W: 7, M: 33, KH: 1, KW: 1, SH: 1, SW: 1, DH: 1, DW: 1, Group: 1}, n: 3, res: true, act: Relu()},
		{name: "pointwise small K (splatted A)", s: ConvShape{C: 16, H: 9, W: 9, M: 40, KH: 1, KW: 1, SH: 1, SW: 1, DH: 1, DW: 1, Group: 1}, n: 2, act: Clip(0, 6)},
		{name: "pointwise odd K (splatted A, every remainder)", s: ConvShape{C: 7, H: 5, W: 5, M: 13, KH: 1, KW: 1, SH: 1, SW: 1, DH: 1, DW: 1, Group: 1}, n: 2, res: true},
		{name: "pointwise deep K", s: ConvShape{C: 600, H: 3, W: 5, M: 9, KH: 1, KW: 1, SH: 1, SW: 1, DH: 1, DW: 1, Group: 1}, n: 1},
		{name: "many columns", s: ConvShape{C: 4, H: 20, W: 21, M: 8, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 1}, n: 1, act: Clip(0, 6)},
		{name: "1x1 stride 2", s: ConvShape{C: 8, H: 9, W: 9, M: 16, KH: 1, KW: 1, SH: 2, SW: 2, DH: 1, DW: 1, Group: 1}, n: 2},
		{name: "groups", s: ConvShape{C: 6, H: 7, W: 7, M: 9, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 3}, n: 2},
		{name: "depthwise s1 clip", s: ConvShape{C: 5, H: 13, W: 17, M: 5, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 5}, n: 2, act: Clip(0, 6)},
		{name: "depthwise s2", s: ConvShape{C: 4, H: 14, W: 15, M: 4, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 4}, n: 1},
		{name: "depthwise residual", s: ConvShape{C: 3, H: 6, W: 9, M: 3, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 3}, n: 2, res: true, act: Relu()},
		{name: "depthwise 7x7 s1 (a partial group per row)", s: ConvShape{C: 6, H: 7, W: 7, M: 6, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 6}, n: 2, res: true, act: Clip(0, 6)},
		{name: "depthwise s1 whole groups", s: ConvShape{C: 3, H: 9, W: 8, M: 3, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 3}, n: 1, act: Relu()},
		{name: "depthwise s2 odd width", s: ConvShape{C: 5, H: 7, W: 7, M: 5, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 5}, n: 2, res: true, act: Relu()},
		{name: "depthwise s2 even and no padding", s: ConvShape{C: 3, H: 17, W: 20, M: 3, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 2, PadL: 2, PadB: 0, PadR: 0, Group: 3}, n: 1},
		{name: "depthwise s2 asymmetric padding", s: ConvShape{C: 2, H: 12, W: 19, M: 2, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 0, PadL: 0, PadB: 1, PadR: 1, Group: 2}, n: 2},
		{name: "depthwise tiny planes", s: ConvShape{C: 4, H: 1, W: 2, M: 4, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, Group: 4}, n: 3, res: true},
		{name: "depthwise 5x5 dilated", s: ConvShape{C: 2, H: 12, W: 12, M: 2, KH: 5, KW: 5, SH: 1, SW: 2, DH: 2, DW: 1, PadT: 4, PadL: 2, PadB: 4, PadR: 2, Group: 2}, n: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.s
			r := rand.New(rand.NewPCG(uint64(s.C), uint64(s.M)))
			x := centered(r, tt.n*s.C*s.H*s.W)
			w := centered(r, s.M*s.C/s.Group*s.KH*s.KW)
			bias := centered(r, s.M)
			var res []float32
			if tt.res {
				res = centered(r, tt.n*s.M*s.OutH()*s.OutW())
			}
			out := map[string][]float32{}
			for name, g := range map[string]*Gemm{"portable": NewGemm(), "simd": BestGemm()} {
				conv, err := NewConv(g, s, w, bias, tt.act)
				require.NoError(t, err)
				pool := NewPool(1)
				got := make([]float32, tt.n*s.M*s.OutH()*s.OutW())
				conv.Run(pool, tt.n, x, got, res)
				pool.Close()
				out[name] = got
			}
			tol := 1e-5 * float64(s.C/s.Group*s.KH*s.KW)
			if s.Group == s.C && s.M == s.C {
				tol = 0
			}
			requireClose(t, out["portable"], out["simd"], tol)
		})
	}
}

func TestSIMDGemmMatchesPortable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		m, n, k int
		ep      Epilogue
		transC  bool // C (and the residual) column-major: the fully connected layer's transposed output
		res     bool
	}{
		{name: "square", m: 64, n: 64, k: 64, ep: Epilogue{Alpha: 1}},
		{name: "edges", m: 13, n: 29, k: 7, ep: Epilogue{Alpha: 1, BiasPerRow: true, Act: Relu()}},
		{name: "alpha beta", m: 9, n: 10, k: 300, ep: Epilogue{Alpha: 0.5, Beta: 2}},
		{name: "bias per column", m: 16, n: 30, k: 20, ep: Epilogue{Alpha: 1, Act: Clip(-0.1, 0.1)}},
		{name: "transposed C", m: 40, n: 8, k: 100, transC: true, res: true, ep: Epilogue{Alpha: 1, BiasPerRow: true}},
		{name: "K zero", m: 8, n: 12, k: 0, ep: Epilogue{Alpha: 1, Beta: 1, BiasPerRow: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(tt.m), uint64(tt.k)))
			a := RowMajor(centered(r, tt.m*tt.k), tt.k)
			b := Mat{Data: centered(r, tt.k*tt.n), RS: 1, CS: tt.k} // a transposed B: strided packing
			ep := tt.ep
			switch {
			case ep.BiasPerRow:
				ep.Bias = centered(r, tt.m)
			case ep.Act.Kind == ActClip:
				ep.Bias = centered(r, tt.n)
			}
			cview := func(d []float32) Mat {
				if tt.transC {
					return Mat{Data: d, RS: 1, CS: tt.m}
				}
				return RowMajor(d, tt.n)
			}
			if tt.res {
				ep.Residual = cview(centered(r, tt.m*tt.n))
			}
			c0 := centered(r, tt.m*tt.n)
			out := map[string][]float32{}
			for name, g := range map[string]*Gemm{"portable": NewGemm(), "simd": BestGemm()} {
				pa := g.PackA(nil, a, tt.m, tt.k)
				got := append([]float32(nil), c0...)
				pool := NewPool(1)
				g.Run(pool, &GemmCall{M: tt.m, N: tt.n, K: tt.k, Batch: 1, A: &pa, B: &MatSource{M: b}, C: cview(got), Ep: ep})
				pool.Close()
				out[name] = got
			}
			requireClose(t, out["portable"], out["simd"], 1e-5*float64(max(tt.k, 1)))
		})
	}
}

func TestSIMDSmallMMatchesPortable(t *testing.T) {
	t.Parallel()
	for _, trans := range []bool{true, false} {
		for _, k := range []int{1, 7, 64, 1281} {
			t.Run(fmt.Sprintf("trans=%v/k=%d", trans, k), func(t *testing.T) {
				t.Parallel()
				const m, n = 2, 37
				r := rand.New(rand.NewPCG(uint64(k), 7))
				a, b := centered(r, m*k), centered(r, n*k)
				ldb := n
				if trans {
					ldb = k
				}
				ep := Epilogue{Alpha: 1, Bias: centered(r, n), Act: Clip(-0.2, 0.3)}
				out := map[string][]float32{}
				for name, g := range map[string]*Gemm{"portable": NewGemm(), "simd": BestGemm()} {
					got := make([]float32, m*n)
					s := SmallM{M: m, N: n, K: k, A: a, LDA: k, B: b, LDB: ldb, TransposeB: trans, C: got, LDC: n, Ep: ep, G: g}
					pool := NewPool(1)
					s.Run(pool)
					pool.Close()
					out[name] = got
				}
				requireClose(t, out["portable"], out["simd"], 1e-5*float64(k))
			})
		}
	}
}

// simdGemmAt is the gemm kernel called with a raw address.
//
//go:wasmimport onnx_simd gemm
func simdGemmAt(desc uint32) int32

// TestSIMDMaxPoolMatchesPortable: max pooling is exact (NaN where the
// portable kernel has NaN).
func TestSIMDMaxPoolMatchesPortable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    PoolShape
	}{
		{name: "resnet stem 3x3 s2", s: PoolShape{C: 3, H: 23, W: 29, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, OH: 12, OW: 15}},
		{name: "2x2 s2", s: PoolShape{C: 4, H: 24, W: 24, KH: 2, KW: 2, SH: 2, SW: 2, DH: 1, DW: 1, OH: 12, OW: 12}},
		{name: "ceil mode windows past the input", s: PoolShape{C: 2, H: 9, W: 21, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, OH: 5, OW: 11}},
		{name: "3x3 s1 (one value at a time)", s: PoolShape{C: 2, H: 7, W: 8, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 1, PadL: 1, PadB: 1, PadR: 1, OH: 7, OW: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.s
			const n = 2
			r := rand.New(rand.NewPCG(uint64(s.H), uint64(s.W)))
			x := centered(r, n*s.C*s.H*s.W)
			x[5] = float32(math.NaN())
			out := map[string][]float32{}
			for name, g := range map[string]*Gemm{"portable": NewGemm(), "simd": BestGemm()} {
				y := make([]float32, n*s.C*s.OH*s.OW)
				pool := NewPool(1)
				g.RunPool(pool, &PoolTask{Kind: MaxPool, Shape: s, X: x, Y: y}, n*s.C)
				pool.Close()
				out[name] = y
			}
			for i, want := range out["portable"] {
				got := out["simd"][i]
				if want != want {
					assert.True(t, math.IsNaN(float64(got)), "element %d: want NaN, got %v", i, got)
					continue
				}
				assert.Equal(t, want, got, "element %d", i) //nolint:testifylint // exact: a max picks one of its inputs
			}
		})
	}
}

func centered(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32() - 0.5
	}
	return s
}

// TestSIMDRejectsBadRanges calls the kernels with descriptors that point
// outside linear memory or carry bad sizes: each returns its status and
// touches nothing (a trap would fail the whole test binary).
func TestSIMDRejectsBadRanges(t *testing.T) {
	t.Parallel()
	var sc simdScratch
	x := make([]float32, 64)
	floats := sc.floatsN(int(simdGemmScratchLen()))
	aPtrs := []uint32{addr(x)}
	outside := uint32(0xffff_fff0)
	valid := func() simdGemmDesc {
		return simdGemmDesc{m: 4, n: 4, k: 4, batch: 1, a: uint32(uintptr(unsafe.Pointer(&aPtrs[0]))), groups: 1,
			src: simdSrcMatrix, b: addr(x), bRS: 4, bCS: 1, c: addr(x), cRS: 4, cCS: 1, alpha: 1,
			scratch: addr(floats), scratchLen: int32(len(floats))}
	}
	gemm := []struct {
		name string
		edit func(d *simdGemmDesc)
		want int32
	}{
		{name: "valid", edit: func(*simdGemmDesc) {}, want: 0},
		{name: "C outside", edit: func(d *simdGemmDesc) { d.c = outside }, want: 1},
		{name: "C rows past memory", edit: func(d *simdGemmDesc) { d.cRS = 1 << 30 }, want: 1},
		{name: "B outside", edit: func(d *simdGemmDesc) { d.b = outside }, want: 1},
		{name: "A pointer array outside", edit: func(d *simdGemmDesc) { d.a = outside }, want: 1},
		{name: "scratch outside", edit: func(d *simdGemmDesc) { d.scratch = outside &^ 15 }, want: 1},
		{name: "residual outside", edit: func(d *simdGemmDesc) { d.res, d.resRS, d.resCS = outside, 4, 1 }, want: 1},
		{name: "bias outside", edit: func(d *simdGemmDesc) { d.bias = outside }, want: 1},
		{name: "negative size", edit: func(d *simdGemmDesc) { d.m = -1 }, want: 2},
		{name: "negative stride", edit: func(d *simdGemmDesc) { d.cRS = -4 }, want: 2},
		{name: "small scratch", edit: func(d *simdGemmDesc) { d.scratchLen = 16 }, want: 2},
		{name: "unknown source", edit: func(d *simdGemmDesc) { d.src = 9 }, want: 2},
		{name: "conv K mismatch", edit: func(d *simdGemmDesc) {
			d.src, d.ch, d.h, d.w, d.kh, d.kw, d.sh, d.sw, d.dh, d.dw, d.ow = simdSrcConv, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2
		}, want: 2},
	}
	for _, tt := range gemm {
		d := valid()
		tt.edit(&d)
		assert.Equal(t, tt.want, simdGemm(unsafe.Pointer(&d)), "gemm: %s", tt.name)
	}
	assert.Equal(t, int32(1), simdGemmAt(outside), "gemm: descriptor outside")

	dw := simdDepthwiseDesc{n: 1, c: 1, h: 4, w: 4, oh: 4, ow: 4, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, padT: 1, padL: 1,
		x: addr(x), y: addr(x[16:]), wts: addr(x[32:]), scratch: addr(floats), scratchLen: int32(len(floats))}
	assert.Equal(t, int32(0), simdDepthwise(unsafe.Pointer(&dw)), "depthwise: valid")
	for name, edit := range map[string]func(d *simdDepthwiseDesc){
		"input outside":   func(d *simdDepthwiseDesc) { d.x = outside },
		"output outside":  func(d *simdDepthwiseDesc) { d.y = outside },
		"weights outside": func(d *simdDepthwiseDesc) { d.wts = outside },
		"planes overflow": func(d *simdDepthwiseDesc) { d.n, d.c = 1<<30, 1<<30 },
	} {
		d := dw
		edit(&d)
		assert.Equal(t, int32(1), simdDepthwise(unsafe.Pointer(&d)), "depthwise: %s", name)
	}
	d := dw
	d.sh = 0
	assert.Equal(t, int32(2), simdDepthwise(unsafe.Pointer(&d)), "depthwise: zero stride")

	mp := simdMaxPoolDesc{n: 1, c: 1, h: 4, w: 4, oh: 2, ow: 2, kh: 2, kw: 2, sh: 2, sw: 2,
		x: addr(x), y: addr(x[16:]), scratch: addr(floats), scratchLen: 32}
	assert.Equal(t, int32(0), simdMaxPool(unsafe.Pointer(&mp)), "maxpool: valid")
	for _, tt := range []struct {
		name string
		edit func(d *simdMaxPoolDesc)
		want int32
	}{
		{name: "input outside", edit: func(d *simdMaxPoolDesc) { d.x = outside }, want: 1},
		{name: "output outside", edit: func(d *simdMaxPoolDesc) { d.y = outside }, want: 1},
		{name: "scratch outside", edit: func(d *simdMaxPoolDesc) { d.scratch = outside &^ 15 }, want: 1},
		{name: "planes overflow", edit: func(d *simdMaxPoolDesc) { d.n, d.c = 1<<30, 1<<30 }, want: 1},
		{name: "small scratch", edit: func(d *simdMaxPoolDesc) { d.scratchLen = 4 }, want: 2},
		{name: "zero stride", edit: func(d *simdMaxPoolDesc) { d.sw = 0 }, want: 2},
	} {
		d := mp
		tt.edit(&d)
		assert.Equal(t, tt.want, simdMaxPool(unsafe.Pointer(&d)), "maxpool: %s", tt.name)
	}

	sm := simdSmallMDesc{m: 2, n: 2, k: 4, a: addr(x), lda: 4, b: addr(x), ldb: 4, transB: 1, c: addr(x[32:]), ldc: 2, alpha: 1}
	assert.Equal(t, int32(0), simdSmallM(unsafe.Pointer(&sm), unsafe.Pointer(&sc.out[0])), "smallm: valid")
	sm.c = outside
	assert.Equal(t, int32(1), simdSmallM(unsafe.Pointer(&sm), unsafe.Pointer(&sc.out[0])), "smallm: C outside")
}
