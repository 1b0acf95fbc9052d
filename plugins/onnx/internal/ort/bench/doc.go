// Package bench holds what the ORT engine's benchmarks share with the
// raw ONNX Runtime baseline: the input the models run on. The baseline
// itself is a C program (rawort/rawort.c) and ortcompare runs the two
// back to back.
//
// Package bench imports only the standard library and the plugin's
// engine package; it must never import sdk, abi, host, loadgen or cmd.
package bench
