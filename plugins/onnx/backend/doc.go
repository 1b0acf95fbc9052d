// Package backend implements sdk.Backend for the onnx plugin over the
// engines of plugins/onnx/internal: the pure-Go engine (every build,
// including the WASM guest) and ONNX Runtime (native builds, when the
// plugin's main registers it).
//
// The plugin's main wires it in one line, natively
//
//	sdk.Serve(backend.New(goengine.New(), ort.New()))
//
// and in the WASM reactor
//
//	sdk.Register(backend.New(goengine.New()))
//
// The onnx-ort plugin (plugins/onnx/cmd/onnx-ort) uses [NewWithConfig]:
// its own name, ONNX Runtime as the default engine and the go engine as
// the fallback when the library is missing.
//
// Package backend imports only the standard library, sdk, abi and the
// onnx plugin's internal engine package; it must never import host, loadgen,
// cmd or another plugin.
package backend
