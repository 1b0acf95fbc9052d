// Package wasmsimd holds the onnx plugin's WebAssembly SIMD128 kernels:
// C sources in csrc/ compiled by clang for wasm32 (`make onnx-simd`) into
// onnx_simd.wasm, a committed artifact with its stamp (onnx_simd.stamp,
// the sha256 of the sources and build flags it was built from, and of the
// module). [Module] returns it; the link command (./link) links it into
// the plugin's Go guest, whose wasm build of package kernels imports the
// functions from [ImportModule].
//
// The tests check that the artifact is current (without clang: they
// compare the stamp with the sources), that the module follows the
// library rules of plugins/internal/wasmlink, and that it exports what the
// kernels import.
//
// Package wasmsimd imports only the standard library; it must not import
// sdk, abi, host, loadgen, cmd or anything else of ours.
package wasmsimd
