//go:build !wasm || purego

package kernels

// simdScratch is the SIMD kernels' scratch memory: nothing outside the
// WASM build.
type simdScratch struct{} //nolint:unused // the field of Scratch the WASM build uses
