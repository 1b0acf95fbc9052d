//go:build (!amd64 && !wasm) || purego

package kernels

// nativeKernels lists the micro-kernels this platform offers besides the
// portable one: none.
func nativeKernels() []microKernel { return nil }

// depthwiseRow returns the vectorized depthwise row routine: none here.
func depthwiseRow() func(n int, r0, r1, r2, out, w []float32, ep *tileEpilogue) { return nil }

// dotVec returns the vectorized dot product: none here.
func dotVec() func(a, b []float32) float32 { return nil }

// platformWholeKernels returns the whole-call kernels: none here.
func platformWholeKernels() *wholeKernels { return nil }
