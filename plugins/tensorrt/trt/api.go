package trt

import (
	"fmt"
	"unsafe"
)

// stream is a cudaStream_t; event is a cudaEvent_t; graph is a
// cudaGraph_t and graphExec a cudaGraphExec_t.
type (
	stream    uintptr
	event     uintptr
	graph     uintptr
	graphExec uintptr
)

// copyKind is a cudaMemcpyKind.
type copyKind uintptr

const (
	hostToDevice   copyKind = 1
	deviceToHost   copyKind = 2
	deviceToDevice copyKind = 3
)

// cudaAPI is the CUDA runtime surface the plugin drives: the device-facing
// layer below the scheduler. *cudart implements it by binding libcudart at
// run time; tests bind the same C entry points in a fake runtime.
//
// Calls that use the current device (SetDevice, Malloc, MemInfo, stream
// and event creation) act on the calling OS thread's device: callers pin
// themselves with runtime.LockOSThread first.
type cudaAPI interface {
	DeviceCount() (int, error)
	SetDevice(ordinal int) error
	// DeviceProperties returns the name, total memory and UUID without
	// creating a CUDA context on the device.
	DeviceProperties(ordinal int) (deviceProps, error)
	// PCIBusID returns the device's PCI address, e.g. "0000:3b:00.0".
	PCIBusID(ordinal int) (string, error)
	DeviceAttribute(attr, ordinal int) (int, error)
	RuntimeVersion() (int, error)
	DriverVersion() (int, error)
	// MemInfo reports the current device's free and total memory.
	MemInfo() (free, total uint64, err error)
	Malloc(size uintptr) (uintptr, error)
	Free(p uintptr) error
	MallocHost(size uintptr) (unsafe.Pointer, error)
	FreeHost(p unsafe.Pointer) error
	// CopyToDevice copies src into device memory synchronously.
	CopyToDevice(dst uintptr, src []byte) error
	// CopyAsync enqueues a copy of n bytes on s. Host addresses must be
	// pinned memory from MallocHost.
	CopyAsync(dst, src, n uintptr, kind copyKind, s stream) error
	// BatchCopies reports whether CopyBatchAsync is available
	// (cudaMemcpyBatchAsync, CUDA 12.8 and later).
	BatchCopies() bool
	// CopyBatchAsync enqueues len(dsts) copies on s in one call.
	CopyBatchAsync(dsts, srcs, sizes []uintptr, s stream) error
	StreamCreate() (stream, error)
	StreamDestroy(s stream) error
	// StreamQuery reports whether every operation queued on s has run,
	// without blocking. Like EventQuery it reports done with the error once
	// the device has a sticky error: nothing queued will run any more.
	StreamQuery(s stream) (bool, error)
	// EventCreate creates an event without timing. A blocking event puts
	// the thread that synchronizes on it to sleep; a spinning one is for
	// waits that poll EventQuery.
	EventCreate(blocking bool) (event, error)
	EventDestroy(e event) error
	EventRecord(e event, s stream) error
	// EventSynchronize blocks the calling thread until e completes.
	EventSynchronize(e event) error
	// EventQuery reports whether e completed, without blocking.
	EventQuery(e event) (bool, error)
	// StreamWaitEvent makes work queued on s after it wait for e's last
	// record.
	StreamWaitEvent(s stream, e event) error
	// Graphs reports whether the graph calls are available
	// (cudaGraphInstantiateWithFlags, CUDA 11.4 and later).
	Graphs() bool
	// BeginCapture starts capturing the work the calling thread queues on
	// s into a graph (thread-local capture mode); EndCapture stops and
	// returns it.
	BeginCapture(s stream) error
	EndCapture(s stream) (graph, error)
	GraphInstantiate(g graph) (graphExec, error)
	GraphLaunch(x graphExec, s stream) error
	GraphExecDestroy(x graphExec) error
	GraphDestroy(g graph) error
}

// deviceProps is what cudaDeviceProp tells about a device.
type deviceProps struct {
	name        string
	totalMemory uint64
	uuid        [16]byte
}

// uuidString formats a cudaUUID_t as nvidia-smi does: GPU-8-4-4-4-12 hex.
func uuidString(u [16]byte) string {
	h := fmt.Sprintf("%x", u[:])
	return "GPU-" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// handle is an opaque shim object (runtime, engine or context).
type handle uintptr

// trtAPI is the TensorRT surface, as exposed by the extern "C" shim
// (plugins/tensorrt/shim/mlph_trt.h). *shim implements it. Names are
// NUL-terminated byte slices so hot-path calls do not allocate; errBuf
// receives the shim's message on failure.
type trtAPI interface {
	Version() int
	RuntimeCreate() (handle, error)
	RuntimeDestroy(rt handle)
	Deserialize(rt handle, plan []byte) (handle, error)
	EngineDestroy(e handle)
	NumIO(e handle) int
	IOName(e handle, i int) string
	IOMode(e handle, name []byte) int
	IODataType(e handle, name []byte) int
	IOShape(e handle, name []byte) ([]int64, error)
	NumProfiles(e handle) int
	ProfileShape(e handle, name []byte, profile, which int) ([]int64, error)
	ContextCreate(e handle) (handle, error)
	ContextDestroy(c handle)
	SetProfile(c handle, profile int, s stream) error
	SetInputShape(c handle, name []byte, dims []int64, errBuf []byte) error
	// TensorShape writes the shape tensor name has in context c into d
	// (an output's as the input shapes set make it) and returns its rank.
	TensorShape(c handle, name []byte, d *[maxDims]int64) (int, error)
	SetTensorAddress(c handle, name []byte, addr uintptr) error
	Enqueue(c handle, s stream, errBuf []byte) error
	// InitPlugins registers TensorRT's stock plugin layers;
	// LoadPluginLibrary loads a plugin library into the registry.
	InitPlugins() error
	LoadPluginLibrary(path string) error
	// Build builds a serialized engine from an ONNX model for the calling
	// thread's current device.
	Build(onnx []byte, o BuildOptions) ([]byte, error)
}

// Shim constants, as in mlph_trt.h.
const (
	shimABI     = 3
	ioInput     = 1
	ioOutput    = 2
	profileMin  = 0
	profileMax  = 2
	maxDims     = 8
	errBufBytes = 512
)
