// Package kernels holds the float32 compute kernels of the Go ONNX engine:
// a blocked, packed SGEMM with register-tiled micro-kernels, convolution
// (implicit im2col packed straight into GEMM panels, a direct depthwise
// path), pooling, and a small worker pool that runs them over goroutines.
//
// Everything is pure Go and builds for GOOS=wasip1 (where the pool runs
// one thread). The kernels work on caller-owned slices and allocate
// nothing in steady state: scratch memory lives in a [Pool] and is sized
// once.
//
// Package kernels imports only the standard library; it must never import
// sdk, abi, host, loadgen, cmd or anything else of ours.
package kernels
