package kernels

import "fmt"

// WinogradMode selects when a convolution runs as Winograd minimal
// filtering instead of a GEMM over its im2col matrix. Only the WASM
// build's SIMD kernels have a Winograd path (winograd_wasm.go); the
// native builds ignore the mode.
type WinogradMode int

// The Winograd modes.
const (
	// WinogradAuto takes Winograd for the 3×3 stride-1 convolutions where
	// it was measured faster, with the tile size measured faster.
	WinogradAuto WinogradMode = iota
	// WinogradOff keeps every convolution on the GEMM.
	WinogradOff
	// WinogradF2 forces F(2×2, 3×3) for every eligible convolution.
	WinogradF2
	// WinogradF4 forces F(4×4, 3×3) for every eligible convolution.
	WinogradF4
)

// ParseWinogradMode reads auto, off, f2 or f4.
func ParseWinogradMode(s string) (WinogradMode, error) {
	switch s {
	case "", "auto":
		return WinogradAuto, nil
	case "off":
		return WinogradOff, nil
	case "f2":
		return WinogradF2, nil
	case "f4":
		return WinogradF4, nil
	}
	return WinogradAuto, fmt.Errorf("winograd mode %q: want auto, off, f2 or f4", s)
}

// WithWinograd returns a copy of g whose convolutions choose the Winograd
// path by mode.
func (g *Gemm) WithWinograd(mode WinogradMode) *Gemm {
	c := *g
	c.winograd = mode
	return &c
}

// winogradEligible reports whether Winograd F(m×m, 3×3) computes the
// convolution: a 3×3 kernel, stride 1, dilation 1, one group.
func winogradEligible(s *ConvShape) bool {
	return s.KH == 3 && s.KW == 3 && s.SH == 1 && s.SW == 1 && s.DH == 1 && s.DW == 1 && s.Group == 1
}

// winogradPlan is a convolution's Winograd form, made at load: its
// weights transformed (U = G·g·Gᵀ per output and input channel) and
// packed per frequency like the GEMM's A.
type winogradPlan struct {
	m  int       //nolint:unused // the output tile, 2 or 4 (winograd_wasm.go)
	nt int       //nolint:unused // tiles per block (winograd_wasm.go)
	u  []float32 //nolint:unused // (m+2)² frequencies of 8-row panels (winograd_wasm.go)
}
