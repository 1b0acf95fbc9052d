//go:build !wasm

package kernels

// goKernel is the portable micro-kernel this platform runs best: natively
// the array-accumulator tile.
func goKernel() microKernel { return go4x16() }
