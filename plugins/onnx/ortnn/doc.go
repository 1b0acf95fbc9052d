// Package ortnn is ONNX Runtime as an inference service for a host that
// runs WASM guests: the engine behind mlperf-host's wasi-nn import (the
// host's NN interface, adapted in internal/nnort). It loads ONNX models
// into ONNX Runtime sessions (the onnx plugin's ort engine) and runs them
// on tensors given by index, with standard-library types only, so that
// the host side can use it without importing the plugin's internals.
//
// Package ortnn imports only the onnx plugin's own packages; it must not
// import sdk, host, loadgen or cmd.
package ortnn
