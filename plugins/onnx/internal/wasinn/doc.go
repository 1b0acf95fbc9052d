// Package wasinn is the onnx plugin's engine that runs models through the
// host's WASI-NN import (wasi_ephemeral_nn, witx ABI) when the plugin is
// a WASM guest: the model is loaded into the host's inference engine (in
// mlperf-host, ONNX Runtime) and every Run is set_input, compute and
// get_output calls, while the plugin's batching and pre- and
// post-processing stay in the sandbox. The engine is named "wasinn"; a
// host without a wasi-nn engine makes its Load fail with
// engine.ErrUnavailable, so the plugin falls back to the go engine.
//
// Its imports exist only in GOOS=wasip1 builds (wasinn_wasip1.go); what
// needs no host (the model's input and output descriptions, output
// shapes) is plain Go, tested natively.
//
// Package wasinn imports only the onnx plugin's engine and onnxpb; it
// must not import sdk, abi, host, loadgen or cmd.
package wasinn
