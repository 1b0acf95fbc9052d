// Package trt is the TensorRT backend of mlperf-host: it runs a serialized
// TensorRT engine (a plan file) on one or more CUDA GPUs.
//
// Both native libraries are bound at run time with purego, so the package
// builds with CGO_ENABLED=0 on machines without CUDA or TensorRT:
//
//   - libcudart, the CUDA runtime's C API, for devices, memory, streams and
//     events;
//   - libmlph_trt.so, a small extern "C" shim over TensorRT's C++ API
//     (plugins/tensorrt/shim), built where TensorRT is installed.
//
// Each selected device gets Config.Streams lanes. A lane is one CUDA stream
// with an execution context of each engine of the model, an event, device
// buffers for every I/O tensor and pinned host buffers for asynchronous
// copies. Load declares one lane's batch as MaxBatch and, in the Server
// scenario, a batch deadline, so that the SDK cuts queries into lane
// batches and batches one-sample queries across queries; each Infer call
// runs on an idle lane of any device, on the smallest engine that takes
// the batch, and completes its samples when the lane's event fires. By default the placement is what MLPerf's rules require:
// LoadSamples copies samples into pinned host memory, untimed, and lanes
// copy each batch from there (one copy per input for a contiguous run, one
// per sample otherwise); outputs always reach host memory. The
// start_from_device and end_on_device options depart from that, as the
// rules allow only for approved systems.
//
// The device-facing layer sits behind two interfaces, cudaAPI and trtAPI;
// the tests drive the real purego bindings against a fake CUDA runtime and a
// fake shim compiled from testdata/fake.
//
// Package trt imports only the sdk, the accelerator core (plugins/internal)
// and purego; it must not import host, loadgen, cmd or another plugin.
package trt
