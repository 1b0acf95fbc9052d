//go:build wasm

package kernels

// goKernel is the portable micro-kernel this platform runs best: in WASM
// the register tile.
func goKernel() microKernel { return go4x8() }
