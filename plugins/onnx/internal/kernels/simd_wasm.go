//go:build wasm && !purego

package kernels

import (
	"fmt"
	"runtime"
	"structs"
	"unsafe"
)

// The WASM build's kernels: WebAssembly SIMD128 code compiled from C
// (package wasmsimd), which the build links into this module (a guest
// built without linking fails to instantiate: it imports functions from
// module onnx_simd that no host provides; build with -tags purego for the
// portable kernels alone). They run whole calls (a GEMM with its B
// packing and epilogue, a depthwise convolution, a small-M product) so
// that no scalar Go loop remains on the hot path. Each checks every range
// it is given against linear memory and returns a status; the Go side
// checks the same ranges against its slices first, so a non-zero status
// is a bug and panics.

//go:wasmimport onnx_simd gemm
func simdGemm(desc unsafe.Pointer) int32

//go:wasmimport onnx_simd gemm_scratch_len
func simdGemmScratchLen() int32

//go:wasmimport onnx_simd depthwise
func simdDepthwise(desc unsafe.Pointer) int32

//go:wasmimport onnx_simd depthwise_scratch_len
func simdDepthwiseScratchLen(h, w, oh, ow, kh, kw, sh, sw, dh, dw, padT, padL int32) int32

//go:wasmimport onnx_simd smallm
func simdSmallM(desc, scratch unsafe.Pointer) int32

//go:wasmimport onnx_simd maxpool
func simdMaxPool(desc unsafe.Pointer) int32

// simdGemmDesc is gemm_desc of csrc/gemm.c, field for field.
type simdGemmDesc struct {
	_                                                structs.HostLayout
	m, n, k, batch                                   int32
	a                                                uint32
	groups, src                                      int32
	b                                                uint32
	bRS, bCS, bBatch                                 int32
	ch, h, w, kh, kw, sh, sw, dh, dw, padT, padL, ow int32
	c                                                uint32
	cRS, cCS, cBatch                                 int32
	alpha, beta                                      float32
	bias                                             uint32
	biasPerRow                                       int32
	res                                              uint32
	resRS, resCS, act                                int32
	lo, hi                                           float32
	scratch                                          uint32
	scratchLen                                       int32
	aLayout                                          int32 // simdARows8 or simdASplat6
}

// simdDepthwiseDesc is dw_desc of csrc/depthwise.c.
type simdDepthwiseDesc struct {
	_                                                      structs.HostLayout
	n, c, h, w, oh, ow, kh, kw, sh, sw, dh, dw, padT, padL int32
	x, y, wts, bias, res                                   uint32
	act                                                    int32
	lo, hi                                                 float32
	scratch                                                uint32
	scratchLen                                             int32
}

// simdSmallMDesc is smallm_desc of csrc/smallm.c.
type simdSmallMDesc struct {
	_           structs.HostLayout
	m, n, k     int32
	a           uint32
	lda         int32
	b           uint32
	ldb, transB int32
	c           uint32
	ldc         int32
	alpha, beta float32
	bias        uint32
	act         int32
	lo, hi      float32
}

// simdMaxPoolDesc is maxpool_desc of csrc/pool.c.
type simdMaxPoolDesc struct {
	_                                              structs.HostLayout
	n, c, h, w, oh, ow, kh, kw, sh, sw, padT, padL int32
	x, y, scratch                                  uint32
	scratchLen                                     int32
}

// The B source kinds of simdGemmDesc.src.
const (
	simdSrcMatrix = 0
	simdSrcConv   = 1
)

// The packed A layouts of simdGemmDesc.aLayout: 8-row panels (PackA), or
// 6-row panels with each value repeated 4 times (packSplat6).
const (
	simdARows8  = 0
	simdASplat6 = 1
)

// The descriptors' sizes in csrc (checked there with _Static_assert).
const (
	simdGemmDescSize      = 160
	simdDepthwiseDescSize = 96
	simdSmallMDescSize    = 64
	simdMaxPoolDescSize   = 64
)

// simdScratch is a worker's memory for the SIMD kernels: descriptors and
// the kernels' scratch floats, 16-byte aligned.
type simdScratch struct {
	gemm   simdGemmDesc
	dw     simdDepthwiseDesc
	small  simdSmallMDesc
	pool   simdMaxPoolDesc
	wino   simdWinoDesc
	aPtrs  []uint32
	floats []float32
	out    [4]float32
}

// simdKernel is the SIMD GEMM as a micro-kernel entry: its tile shape
// fixes how A is packed (8-row panels); fn, the portable tile, only
// serves the package's generic loops, which the whole-call kernel
// replaces.
func simdKernel() microKernel {
	return microKernel{name: "wasm-simd128-8x6", mr: 8, nr: 6, fn: kernel8x6}
}

func nativeKernels() []microKernel { return []microKernel{simdKernel()} }

// depthwiseRow returns the vectorized depthwise row routine: none (the
// whole-call kernel replaces it).
func depthwiseRow() func(n int, r0, r1, r2, out, w []float32, ep *tileEpilogue) { return nil }

// dotVec returns the vectorized dot product: none (see depthwiseRow).
func dotVec() func(a, b []float32) float32 { return nil }

func platformWholeKernels() *wholeKernels {
	return &wholeKernels{gemm: simdGemmCall, depthwise: simdDepthwiseCall, smallM: simdSmallMCall, packPointwise: packSplat6,
		maxPool: simdMaxPoolCall, planWinograd: planWinograd, winograd: simdWinogradCall}
}

// The descriptors match csrc's sizes (a compile error otherwise).
const (
	_ = uint(simdGemmDescSize-unsafe.Sizeof(simdGemmDesc{})) + uint(unsafe.Sizeof(simdGemmDesc{})-simdGemmDescSize)
	_ = uint(simdDepthwiseDescSize-unsafe.Sizeof(simdDepthwiseDesc{})) + uint(unsafe.Sizeof(simdDepthwiseDesc{})-simdDepthwiseDescSize)
	_ = uint(simdSmallMDescSize-unsafe.Sizeof(simdSmallMDesc{})) + uint(unsafe.Sizeof(simdSmallMDesc{})-simdSmallMDescSize)
	_ = uint(simdMaxPoolDescSize-unsafe.Sizeof(simdMaxPoolDesc{})) + uint(unsafe.Sizeof(simdMaxPoolDesc{})-simdMaxPoolDescSize)
)

// splatPointwise reports whether a pointwise convolution of M output
// channels and K inputs runs faster on the N-vectorized tile (measured on
// MobileNetV2's and ResNet-50's shapes: small K, or few rows, where the
// 8-row tile spends most on packing B or on its transposing store) and
// its 4× weights stay small (at most 1.5 MiB).
func splatPointwise(m, k int) bool {
	return (k <= 32 || m <= 64 && k <= 384) && m*k <= 96<<10
}

// packSplat6 packs an M×K row-major matrix in 6-row panels with each value
// repeated 4 times: panel p holds, for each k, rows 6p..6p+5 (zero past
// M) as 4 copies each.
func packSplat6(w []float32, m, k int) (PackedA, bool) {
	if !splatPointwise(m, k) {
		return PackedA{}, false
	}
	panels := ceilDiv(m, 6)
	data := make([]float32, panels*6*4*k)
	for p := range panels {
		for r := range 6 {
			i := p*6 + r
			if i >= m {
				continue
			}
			for kk, v := range w[i*k : (i+1)*k] {
				o := p*6*4*k + kk*24 + r*4
				data[o], data[o+1], data[o+2], data[o+3] = v, v, v, v
			}
		}
	}
	return PackedA{M: m, K: k, mr: 6, data: data, splat: true}, true
}

// addr is the linear-memory address of s's first element (0 for an
// empty slice: the kernels touch nothing then).
func addr(s []float32) uint32 {
	if len(s) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(s))))
}

// floatsN returns n scratch floats from a 16-byte boundary.
func (sc *simdScratch) floatsN(n int) []float32 {
	if cap(sc.floats) < n+4 {
		sc.floats = make([]float32, n+4)
	}
	f := sc.floats[:cap(sc.floats)]
	skip := int((16 - uintptr(unsafe.Pointer(&f[0]))%16) % 16 / 4)
	return f[skip : skip+n]
}

// need panics unless s holds extent elements: the Go side's check that a
// kernel stays inside the slices it was given.
func need(what string, s []float32, extent int) {
	if extent > len(s) {
		panic(fmt.Sprintf("simd kernel: %s has %d elements, the call reaches %d", what, len(s), extent))
	}
}

// extent is one past the largest index of an r×c view.
func extent(r, c, rs, cs int) int {
	if r <= 0 || c <= 0 {
		return 0
	}
	return (r-1)*rs + (c-1)*cs + 1
}

func status(kernel string, st int32) {
	if st != 0 {
		panic(fmt.Sprintf("simd kernel %s: status %d (1: a range outside memory, 2: a bad argument)", kernel, st))
	}
}

func actDesc(a Activation) (int32, float32, float32) {
	switch a.Kind {
	case ActRelu:
		return 1, 0, 0
	case ActClip:
		return 2, a.Min, a.Max
	}
	return 0, 0, 0
}

func simdGemmCall(c *GemmCall, s *Scratch) {
	sc := &s.simd
	d := &sc.gemm
	*d = simdGemmDesc{m: int32(c.M), n: int32(c.N), k: int32(c.K), batch: int32(c.Batch)}
	last := c.Batch - 1
	sc.aPtrs = sc.aPtrs[:0]
	first := c.A
	if c.AGroups != nil {
		first = &c.AGroups[0]
	}
	if first == nil {
		panic("simd kernel gemm: no A")
	}
	packedLen := ceilDiv(c.M, 8) * 8 * c.K
	if first.splat {
		d.aLayout = simdASplat6
		packedLen = ceilDiv(c.M, 6) * 6 * 4 * c.K
	}
	if c.AGroups != nil {
		for i := range c.AGroups {
			if c.AGroups[i].splat != first.splat {
				panic("simd kernel gemm: A groups of different layouts")
			}
			need("packed A", c.AGroups[i].data, packedLen)
			sc.aPtrs = append(sc.aPtrs, addr(c.AGroups[i].data))
		}
	} else {
		need("packed A", c.A.data, packedLen)
		sc.aPtrs = append(sc.aPtrs, addr(c.A.data))
	}
	d.a = uint32(uintptr(unsafe.Pointer(&sc.aPtrs[0])))
	d.groups = int32(len(sc.aPtrs))
	switch b := c.B.(type) {
	case *MatSource:
		need("B", b.M.Data, last*b.BatchStride+extent(c.K, c.N, b.M.RS, b.M.CS))
		d.src, d.b = simdSrcMatrix, addr(b.M.Data)
		d.bRS, d.bCS, d.bBatch = int32(b.M.RS), int32(b.M.CS), int32(b.BatchStride)
	case *im2colSource:
		cs := b.s
		images := last/max(cs.Group, 1) + 1
		need("image", b.x, images*cs.C*cs.H*cs.W)
		d.src, d.b = simdSrcConv, addr(b.x)
		d.ch, d.h, d.w, d.kh, d.kw = int32(cs.C), int32(cs.H), int32(cs.W), int32(cs.KH), int32(cs.KW)
		d.sh, d.sw, d.dh, d.dw = int32(cs.SH), int32(cs.SW), int32(cs.DH), int32(cs.DW)
		d.padT, d.padL, d.ow = int32(cs.PadT), int32(cs.PadL), int32(b.ow)
		if int(d.groups) != cs.Group {
			panic("simd kernel gemm: A groups differ from the convolution's")
		}
	default:
		panic(fmt.Sprintf("simd kernel gemm: B source %T", c.B))
	}
	need("C", c.C.Data, last*c.CBatchStride+extent(c.M, c.N, c.C.RS, c.C.CS))
	d.c, d.cRS, d.cCS, d.cBatch = addr(c.C.Data), int32(c.C.RS), int32(c.C.CS), int32(c.CBatchStride)
	ep := &c.Ep
	d.alpha, d.beta = ep.Alpha, ep.Beta
	if ep.Bias != nil {
		n := c.N
		if ep.BiasPerRow {
			n = c.M * len(sc.aPtrs)
			if c.AGroups == nil {
				n = c.M
			}
		}
		need("bias", ep.Bias, n)
		d.bias, d.biasPerRow = addr(ep.Bias), boolInt32(ep.BiasPerRow)
	}
	if r := ep.Residual; r.Data != nil {
		need("residual", r.Data, last*c.CBatchStride+extent(c.M, c.N, r.RS, r.CS))
		d.res, d.resRS, d.resCS = addr(r.Data), int32(r.RS), int32(r.CS)
	}
	d.act, d.lo, d.hi = actDesc(ep.Act)
	f := sc.floatsN(int(simdGemmScratchLen()))
	d.scratch, d.scratchLen = addr(f), int32(len(f))
	status("gemm", simdGemm(unsafe.Pointer(d)))
	runtime.KeepAlive(c)
}

func simdDepthwiseCall(c *Conv, n int, x, y, res []float32, s *Scratch) {
	sh := &c.s
	oh, ow := sh.OutH(), sh.OutW()
	planes := n * sh.C
	needConv(x, y, res, c.bias, planes*sh.H*sh.W, planes*oh*ow, sh.C)
	need("weights", c.dw, sh.C*sh.KH*sh.KW)
	sc := &s.simd
	d := &sc.dw
	*d = simdDepthwiseDesc{n: int32(n), c: int32(sh.C), h: int32(sh.H), w: int32(sh.W), oh: int32(oh), ow: int32(ow),
		kh: int32(sh.KH), kw: int32(sh.KW), sh: int32(sh.SH), sw: int32(sh.SW), dh: int32(sh.DH), dw: int32(sh.DW),
		padT: int32(sh.PadT), padL: int32(sh.PadL), x: addr(x), y: addr(y), wts: addr(c.dw), bias: addr(c.bias), res: addr(res)}
	d.act, d.lo, d.hi = actDesc(c.act)
	d.scratch, d.scratchLen = sc.kernelScratch("depthwise",
		simdDepthwiseScratchLen(d.h, d.w, d.oh, d.ow, d.kh, d.kw, d.sh, d.sw, d.dh, d.dw, d.padT, d.padL))
	status("depthwise", simdDepthwise(unsafe.Pointer(d)))
	keepConv(c, x, y, res)
}

// kernelScratch returns want scratch floats from a 16-byte boundary as a
// descriptor's scratch and length; want < 0 is the kernel's answer for a
// problem too large for its scratch.
func (sc *simdScratch) kernelScratch(kernel string, want int32) (uint32, int32) {
	if want < 0 {
		panic("simd kernel " + kernel + ": problem too large for its scratch")
	}
	f := sc.floatsN(int(want))
	return addr(f), int32(len(f))
}

// keepConv keeps a convolution's slices alive until a kernel that reached
// them by address has returned.
func keepConv(c *Conv, x, y, res []float32) {
	runtime.KeepAlive(x)
	runtime.KeepAlive(y)
	runtime.KeepAlive(res)
	runtime.KeepAlive(c)
}

// needConv checks a convolution kernel's input, output, residual and
// bias against the lengths the call reaches (see need).
func needConv(x, y, res, bias []float32, xLen, yLen, biasLen int) {
	need("input", x, xLen)
	need("output", y, yLen)
	if res != nil {
		need("residual", res, yLen)
	}
	if bias != nil {
		need("bias", bias, biasLen)
	}
}

func simdSmallMCall(m *SmallM, s *Scratch) {
	need("A", m.A, extent(m.M, m.K, m.LDA, 1))
	if m.TransposeB {
		need("B", m.B, extent(m.N, m.K, m.LDB, 1))
	} else {
		need("B", m.B, extent(m.K, m.N, m.LDB, 1))
	}
	need("C", m.C, extent(m.M, m.N, m.LDC, 1))
	if m.Ep.Bias != nil {
		need("bias", m.Ep.Bias, m.N)
	}
	sc := &s.simd
	d := &sc.small
	*d = simdSmallMDesc{m: int32(m.M), n: int32(m.N), k: int32(m.K), a: addr(m.A), lda: int32(m.LDA), b: addr(m.B),
		ldb: int32(m.LDB), transB: boolInt32(m.TransposeB), c: addr(m.C), ldc: int32(m.LDC),
		alpha: m.Ep.Alpha, beta: m.Ep.Beta, bias: addr(m.Ep.Bias)}
	d.act, d.lo, d.hi = actDesc(m.Ep.Act)
	status("smallm", simdSmallM(unsafe.Pointer(d), unsafe.Pointer(&sc.out[0])))
	runtime.KeepAlive(m)
}

func simdMaxPoolCall(t *PoolTask, planes int, s *Scratch) bool {
	sh := &t.Shape
	if sh.DH != 1 || sh.DW != 1 || planes == 0 || sh.C == 0 || planes%sh.C != 0 {
		return false
	}
	need("input", t.X, planes*sh.H*sh.W)
	need("output", t.Y, planes*sh.OH*sh.OW)
	sc := &s.simd
	f := sc.floatsN(sh.W + 16)
	d := &sc.pool
	*d = simdMaxPoolDesc{n: int32(planes / sh.C), c: int32(sh.C), h: int32(sh.H), w: int32(sh.W), oh: int32(sh.OH),
		ow: int32(sh.OW), kh: int32(sh.KH), kw: int32(sh.KW), sh: int32(sh.SH), sw: int32(sh.SW), padT: int32(sh.PadT),
		padL: int32(sh.PadL), x: addr(t.X), y: addr(t.Y), scratch: addr(f), scratchLen: int32(len(f))}
	status("maxpool", simdMaxPool(unsafe.Pointer(d)))
	runtime.KeepAlive(t)
	return true
}

func boolInt32(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// kernel8x6 is the portable 8×6 tile of simdKernel.
func kernel8x6(kc int, a, b, tile []float32) {
	var acc [8][6]float32
	a = a[:kc*8]
	b = b[:kc*6]
	for p := range kc {
		aa := (*[8]float32)(a[p*8:])
		bb := (*[6]float32)(b[p*6:])
		for r, av := range aa {
			for j, bv := range bb {
				acc[r][j] += av * bv
			}
		}
	}
	t := (*[48]float32)(tile[:48])
	for r := range 8 {
		copy(t[r*6:r*6+6], acc[r][:])
	}
}
