//go:build wasm && !purego

package kernels

import (
	"structs"
	"unsafe"
)

// Winograd minimal filtering F(m×m, 3×3) in the SIMD kernel module
// (csrc/winograd.c): the weights are transformed and packed here at load,
// the kernel transforms the input, runs one GEMM per frequency on the 8×6
// micro-kernel and transforms the products back with the epilogue.

//go:wasmimport onnx_simd winograd
func simdWinograd(desc unsafe.Pointer) int32

//go:wasmimport onnx_simd wino_scratch_len
func simdWinoScratchLen(n, cin, cout, oh, ow, m, nt int32) int32

// simdWinoDesc is wino_desc of csrc/winograd.c.
type simdWinoDesc struct {
	_                                         structs.HostLayout
	n, cin, h, w, cout, oh, ow, padT, padL, m int32
	nt                                        int32
	x, u, y, bias, res                        uint32
	act                                       int32
	lo, hi                                    float32
	scratch                                   uint32
	scratchLen                                int32
}

const simdWinoDescSize = 84

const _ = uint(simdWinoDescSize-unsafe.Sizeof(simdWinoDesc{})) + uint(unsafe.Sizeof(simdWinoDesc{})-simdWinoDescSize)

// winogradG are the filter transforms G of F(2×2, 3×3) and F(4×4, 3×3)
// ((m+2)×3, row-major), with the input and output transforms Bᵀ and Aᵀ
// of csrc/winograd.c (the points 0, ±1 and 0, ±1, ±2, ∞).
var (
	winogradG2 = []float64{
		1, 0, 0,
		0.5, 0.5, 0.5,
		0.5, -0.5, 0.5,
		0, 0, 1,
	}
	winogradG4 = []float64{
		1.0 / 4, 0, 0,
		-1.0 / 6, -1.0 / 6, -1.0 / 6,
		-1.0 / 6, 1.0 / 6, -1.0 / 6,
		1.0 / 24, 1.0 / 12, 1.0 / 6,
		1.0 / 24, -1.0 / 12, 1.0 / 6,
		0, 0, 1,
	}
)

// winogradTile picks the output tile for a convolution under mode, or 0
// to keep the GEMM. Auto takes F(4×4, 3×3): on ResNet-50's four 3×3
// shapes (56×56×64 to 7×7×512, batch 1 and 8) it ran 1.5–3.3× faster
// than the GEMM and 1.1–2.3× faster than F(2×2, 3×3), even on 7×7 planes
// where its tiles cover 64 pixels for 49; with few channels (1 to 16 in,
// 4 to 32 out) it still ran 1.2–4× faster than the GEMM, which pays its
// packing for little K (BENCHMARKS.md, "Winograd 3×3 convolutions").
func winogradTile(mode WinogradMode) int {
	switch mode {
	case WinogradOff:
		return 0
	case WinogradF2:
		return 2
	}
	return 4
}

// winogradBlock is the tiles per block, a whole number of 12s (the 8×6
// micro-kernel's panels and the 4-tile input transform). Blocks of 12,
// 24, 48 and 96 tiles on ResNet-50's shapes differed by less than the
// machine's noise (up to 30% between repeats) but for 96, up to 1.5×
// slower; 24 was never far from the best.
const winogradBlock = 24

// planWinograd transforms and packs w ([M, C, 3, 3]) for F(m×m, 3×3):
// frequency ξ = (m+2)·r + k holds U[ξ] = (G g Gᵀ)[r][k] for every output
// and input channel as an M×C matrix packed in 8-row panels (PackA's
// layout), the frequencies one after another.
func planWinograd(s *ConvShape, w []float32, mode WinogradMode) (*winogradPlan, bool) {
	m := winogradTile(mode)
	if m == 0 {
		return nil, false
	}
	g := winogradG2
	if m == 4 {
		g = winogradG4
	}
	alpha := m + 2
	mp8 := ceilDiv(s.M, 8) * 8
	u := make([]float32, alpha*alpha*mp8*s.C)
	var gg [18]float64 // G·g, alpha×3
	for co := range s.M {
		for ci := range s.C {
			f := w[(co*s.C+ci)*9 : (co*s.C+ci)*9+9]
			for r := range alpha {
				for b := range 3 {
					gg[r*3+b] = g[r*3]*float64(f[b]) + g[r*3+1]*float64(f[3+b]) + g[r*3+2]*float64(f[6+b])
				}
			}
			at := (co/8)*8*s.C + ci*8 + co%8
			for r := range alpha {
				for k := range alpha {
					v := gg[r*3]*g[k*3] + gg[r*3+1]*g[k*3+1] + gg[r*3+2]*g[k*3+2]
					u[(r*alpha+k)*mp8*s.C+at] = float32(v)
				}
			}
		}
	}
	return &winogradPlan{m: m, nt: winogradBlock, u: u}, true
}

func simdWinogradCall(c *Conv, n int, x, y, res []float32, s *Scratch) {
	sh := &c.s
	p := c.wino
	oh, ow := sh.OutH(), sh.OutW()
	alpha := p.m + 2
	needConv(x, y, res, c.bias, n*sh.C*sh.H*sh.W, n*sh.M*oh*ow, sh.M)
	need("weights", p.u, alpha*alpha*ceilDiv(sh.M, 8)*8*sh.C)
	sc := &s.simd
	d := &sc.wino
	*d = simdWinoDesc{n: int32(n), cin: int32(sh.C), h: int32(sh.H), w: int32(sh.W), cout: int32(sh.M),
		oh: int32(oh), ow: int32(ow), padT: int32(sh.PadT), padL: int32(sh.PadL), m: int32(p.m), nt: int32(p.nt),
		x: addr(x), u: addr(p.u), y: addr(y), bias: addr(c.bias), res: addr(res)}
	d.act, d.lo, d.hi = actDesc(c.act)
	d.scratch, d.scratchLen = sc.kernelScratch("winograd", simdWinoScratchLen(d.n, d.cin, d.cout, d.oh, d.ow, d.m, d.nt))
	status("winograd", simdWinograd(unsafe.Pointer(d)))
	keepConv(c, x, y, res)
}
