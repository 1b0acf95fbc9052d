// Package goengine is the pure-Go ONNX inference engine: it decodes a
// model with onnxpb, checks every node against the operators it
// implements, fuses what it can at load (BatchNormalization into Conv,
// Relu/Clip and residual Add into Conv/Gemm), plans each input shape once
// (shape inference, constant folding, one reused buffer arena) and runs
// the plan with the kernels package.
//
// It implements engine.Engine and builds for GOOS=wasip1, where it runs
// single-threaded.
//
// Package goengine imports only the standard library and the onnx
// plugin's internal engine, onnxpb and kernels packages; it must never
// import sdk, abi, host, loadgen, cmd or the ort engine.
package goengine
