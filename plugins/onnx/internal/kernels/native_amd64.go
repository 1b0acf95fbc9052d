//go:build amd64 && !purego

package kernels

import "golang.org/x/sys/cpu"

// kernel6x16AVX2C is implemented in kernel_amd64.s.
//
//go:noescape
func kernel6x16AVX2C(kc int, a, b, c *float32, ldc int, acc int)

// kernel8x32AVX512 is implemented in kernel_amd64.s.
//
//go:noescape
func kernel8x32AVX512(kc int, a, b, c *float32, ldc int, acc int, ep *tileEpilogue)

// avx512Kernel is an 8×32 micro-kernel in AVX-512F assembly: sixteen
// 16-wide accumulators, two loads of B and eight broadcast FMAs from A
// per k.
func avx512Kernel() microKernel {
	return microKernel{name: "avx512-8x32", mr: 8, nr: 32, fn: func(kc int, a, b, tile []float32) {
		_ = tile[255]
		if kc == 0 {
			clear(tile[:256])
			return
		}
		_, _ = a[kc*8-1], b[kc*32-1]
		kernel8x32AVX512(kc, &a[0], &b[0], &tile[0], 32, 0, nil)
	}, direct: func(kc int, a, b, c []float32, ldc int, acc bool, ep *tileEpilogue) {
		_, _, _ = a[kc*8-1], b[kc*32-1], c[7*ldc+31]
		if ep != nil {
			ep.check(8, 32)
		}
		kernel8x32AVX512(kc, &a[0], &b[0], &c[0], ldc, boolInt(acc), ep)
	}, fusedEpilogue: true}
}

// dwRow3x3AVX512 is implemented in kernel_amd64.s.
//
//go:noescape
func dwRow3x3AVX512(n int, r0, r1, r2, out, w *float32, ep *tileEpilogue)

// dwRowAVX512 computes n outputs (a multiple of 16) of one stride-1 3×3
// depthwise row with AVX-512; r0..r2 start at the first tap.
func dwRowAVX512(n int, r0, r1, r2, out, w []float32, ep *tileEpilogue) {
	_, _, _, _, _ = r0[n+1], r1[n+1], r2[n+1], out[n-1], w[8]
	dwRow3x3AVX512(n, &r0[0], &r1[0], &r2[0], &out[0], &w[0], ep)
}

// depthwiseRow returns the vectorized stride-1 3×3 depthwise row
// routine, or nil without AVX-512.
func depthwiseRow() func(n int, r0, r1, r2, out, w []float32, ep *tileEpilogue) {
	if cpu.X86.HasAVX512F {
		return dwRowAVX512
	}
	return nil
}

// dotAVX2 is implemented in kernel_amd64.s.
//
//go:noescape
func dotAVX2(n int, a, b *float32) float32

// dotVec returns the vectorized dot product for multiples of 32
// elements, or nil without AVX2.
func dotVec() func(a, b []float32) float32 {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		return nil
	}
	return func(a, b []float32) float32 {
		n := len(a) &^ 31
		if n == 0 {
			return dot(a, b)
		}
		_ = b[len(a)-1]
		return dotAVX2(n, &a[0], &b[0]) + dot(a[n:], b[n:len(a)])
	}
}

// avx2Kernel is a 6×16 micro-kernel in AVX2+FMA assembly: twelve 8-wide
// accumulators, one broadcast of A and two loads of B per k.
func avx2Kernel() microKernel {
	return microKernel{name: "avx2-6x16", mr: 6, nr: 16, fn: func(kc int, a, b, tile []float32) {
		// Bounds are checked here, once, so that the assembly stays in
		// range.
		_, _, _ = a[kc*6-1+boolInt(kc == 0)], b[kc*16-1+boolInt(kc == 0)], tile[95]
		if kc == 0 {
			clear(tile[:96])
			return
		}
		kernel6x16AVX2C(kc, &a[0], &b[0], &tile[0], 16, 0)
	}, direct: func(kc int, a, b, c []float32, ldc int, acc bool, _ *tileEpilogue) {
		// Bounds are checked here: kc >= 1, a full tile of C.
		_, _, _ = a[kc*6-1], b[kc*16-1], c[5*ldc+15]
		kernel6x16AVX2C(kc, &a[0], &b[0], &c[0], ldc, boolInt(acc))
	}}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nativeKernels lists the micro-kernels this CPU offers besides the
// portable one, best first.
func nativeKernels() []microKernel {
	var ks []microKernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernel())
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2Kernel())
	}
	return ks
}

// platformWholeKernels returns the whole-call kernels: none natively.
func platformWholeKernels() *wholeKernels { return nil }

// check panics unless the epilogue's slices cover an mr×nr tile; it
// guards the assembly against out-of-range reads.
func (e *tileEpilogue) check(mr, nr int) {
	if e.bias != nil {
		_ = e.biasS[mr-1]
	}
	if e.res != nil {
		_ = e.resS[(mr-1)*e.ldr+nr-1]
	}
}
