// Package ort is the ONNX Runtime engine of the onnx plugin: an
// [engine.Engine] that runs models through ONNX Runtime 1.30's C API,
// without cgo.
//
// The binding loads libonnxruntime at run time with
// github.com/ebitengine/purego (dlopen), asks OrtGetApiBase for the OrtApi
// function table of API version 30 and calls the table's entries by their
// index (api.go lists the ones used, as the C header orders them). The
// library's path is a parameter ([Config.Library], or the Load option
// [OptLibrary]); nothing here reads the environment. `make ort` fetches
// the library into third_party/ort/.
//
// Tensors are created over the caller's buffers (no copy of the inputs;
// the buffers stay pinned while ONNX Runtime may read them) and every ONNX
// Runtime object is released on Close.
//
// The binding builds with CGO_ENABLED=0 on Linux and macOS. For other
// targets, GOOS=wasip1 included, the package holds only this
// documentation: the WASM build of the plugin uses the Go engine alone and
// never links the binding.
//
// Package ort imports only the standard library, purego and the plugin's
// engine package; it must never import sdk, abi, host, loadgen, cmd or the
// Go engine.
package ort
