package wasmsimd

import _ "embed"

// ImportModule is the module name the kernels' wasm build imports the
// SIMD functions from.
const ImportModule = "onnx_simd"

//go:embed onnx_simd.wasm
var module []byte

// Module returns the kernel module (shared: do not modify it).
func Module() []byte { return module }
