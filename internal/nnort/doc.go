// Package nnort is the inference engine behind the host's wasi-nn import
// (host.NN) in the mlperf-host binary: ONNX Runtime through the onnx
// plugin's ortnn service. A WASM plugin that imports wasi_ephemeral_nn
// then runs its ONNX model natively, one ONNX Runtime session per
// instance and context, while its own code stays in the sandbox.
//
// The host may not import plugins (it stays a generic runtime) and the
// plugin's ONNX Runtime binding lives under plugins/onnx/internal, so this
// package, which cmd wires into host.Config, is where the two meet. It
// only maps: wasi-nn encodings, targets, element types and errors.
//
// Package nnort may import host and plugins/onnx/ortnn; nothing but cmd
// and internal/runner imports it.
package nnort
