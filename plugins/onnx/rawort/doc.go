// Package rawort drives rawort, the raw ONNX Runtime baseline of the
// benchmark commands (plugins/onnx/internal/ort/bench/rawort/rawort.c,
// built by make bin/rawort): a C program that loads a model with ONNX
// Runtime's C API and, asked on stdin, times runs of it and answers on
// stdout. The commands that compare against it (ortcompare, wasmcompare)
// start one per model and batch size and alternate rounds with their own
// side.
//
// Package rawort imports only the standard library; it must not import
// sdk, abi, host, loadgen, cmd or anything else of ours.
package rawort
