package trt

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// DefaultCudartPaths are tried in order when no cudart path is configured.
var DefaultCudartPaths = []string{
	"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
	"/usr/local/cuda/lib64/libcudart.so",
}

const cudartHint = "install the CUDA runtime (NVIDIA's cuda-cudart package, or " +
	"`pip install nvidia-cuda-runtime-cu12`) and put it on LD_LIBRARY_PATH, " +
	"or set the plugin option cudart=/path/to/libcudart.so.12"

// Event and stream creation flags.
const (
	cudaEventBlockingSync  = 0x01
	cudaEventDisableTiming = 0x02
	cudaStreamNonBlocking  = 0x01
	// cudaErrorNotReady is what cudaEventQuery returns for pending work.
	cudaErrorNotReady = 600
	// devicePropBytes is larger than cudaDeviceProp in every CUDA release.
	devicePropBytes = 4096
	// totalGlobalMemOffset is cudaDeviceProp.totalGlobalMem since CUDA 10:
	// name[256], uuid[16], luid[8], luidDeviceNodeMask, padding.
	totalGlobalMemOffset = 288
	// uuidOffset is cudaDeviceProp.uuid, after name[256].
	uuidOffset = 256
)

// CUDA device attributes (cudaDeviceAttr).
const (
	attrMultiProcessorCount = 16
	attrComputeCapMajor     = 75
	attrComputeCapMinor     = 76
)

// cudart binds libcudart's C API with purego. Each method is one C call.
type cudart struct {
	lib *native.Library

	getErrorString, getDeviceCount, setDevice, deviceGetAttribute uintptr
	getDeviceProperties, getDevicePropertiesV2, memGetInfo        uintptr
	pciBusID                                                      uintptr
	runtimeGetVersion, driverGetVersion                           uintptr
	malloc, free, mallocHost, freeHost, memcpy, memcpyAsync       uintptr
	streamCreateWithFlags, streamDestroy, streamQuery             uintptr
	eventCreateWithFlags, eventDestroy, eventRecord, eventSync    uintptr
	eventQuery, streamWaitEvent                                   uintptr
	beginCapture, endCapture, graphInstantiate, graphLaunch       uintptr
	graphExecDestroy, graphDestroy                                uintptr
	// memcpyBatch is cudaMemcpyBatchAsync; batchArgs its arity, which
	// depends on the runtime version: 9 (12.8, with failIdx), 8 (13 and
	// later) or 0 (absent).
	memcpyBatch uintptr
	batchArgs   int
}

var _ cudaAPI = (*cudart)(nil)

// loadCudart opens the first loadable of paths and binds its functions.
func loadCudart(paths []string) (*cudart, error) {
	lib, err := accel.OpenLibrary(plugin, "libcudart", paths, cudartHint)
	if err != nil {
		return nil, err
	}
	c := &cudart{lib: lib}
	err = lib.Bind([]native.Symbol{
		{Name: "cudaGetErrorString", Fn: &c.getErrorString},
		{Name: "cudaGetDeviceCount", Fn: &c.getDeviceCount},
		{Name: "cudaSetDevice", Fn: &c.setDevice},
		{Name: "cudaDeviceGetAttribute", Fn: &c.deviceGetAttribute},
		{Name: "cudaGetDeviceProperties", Fn: &c.getDeviceProperties},
		{Name: "cudaGetDeviceProperties_v2", Fn: &c.getDevicePropertiesV2, Optional: true},
		{Name: "cudaMemGetInfo", Fn: &c.memGetInfo},
		{Name: "cudaDeviceGetPCIBusId", Fn: &c.pciBusID, Optional: true},
		{Name: "cudaRuntimeGetVersion", Fn: &c.runtimeGetVersion},
		{Name: "cudaDriverGetVersion", Fn: &c.driverGetVersion},
		{Name: "cudaMalloc", Fn: &c.malloc},
		{Name: "cudaFree", Fn: &c.free},
		{Name: "cudaMallocHost", Fn: &c.mallocHost},
		{Name: "cudaFreeHost", Fn: &c.freeHost},
		{Name: "cudaMemcpy", Fn: &c.memcpy},
		{Name: "cudaMemcpyAsync", Fn: &c.memcpyAsync},
		{Name: "cudaStreamCreateWithFlags", Fn: &c.streamCreateWithFlags},
		{Name: "cudaStreamDestroy", Fn: &c.streamDestroy},
		{Name: "cudaStreamQuery", Fn: &c.streamQuery},
		{Name: "cudaEventCreateWithFlags", Fn: &c.eventCreateWithFlags},
		{Name: "cudaEventDestroy", Fn: &c.eventDestroy},
		{Name: "cudaEventRecord", Fn: &c.eventRecord},
		{Name: "cudaEventSynchronize", Fn: &c.eventSync},
		{Name: "cudaEventQuery", Fn: &c.eventQuery},
		{Name: "cudaStreamWaitEvent", Fn: &c.streamWaitEvent},
		{Name: "cudaStreamBeginCapture", Fn: &c.beginCapture, Optional: true},
		{Name: "cudaStreamEndCapture", Fn: &c.endCapture, Optional: true},
		{Name: "cudaGraphInstantiateWithFlags", Fn: &c.graphInstantiate, Optional: true},
		{Name: "cudaGraphLaunch", Fn: &c.graphLaunch, Optional: true},
		{Name: "cudaGraphExecDestroy", Fn: &c.graphExecDestroy, Optional: true},
		{Name: "cudaGraphDestroy", Fn: &c.graphDestroy, Optional: true},
		{Name: "cudaMemcpyBatchAsync", Fn: &c.memcpyBatch, Optional: true},
	})
	if err != nil {
		return nil, fmt.Errorf("tensorrt: bind libcudart: %w", err)
	}
	if v, err := c.RuntimeVersion(); err == nil && c.memcpyBatch != 0 {
		switch {
		case v >= 13000:
			c.batchArgs = 8
		case v >= 12080:
			c.batchArgs = 9
		}
	}
	return c, nil
}

// check turns a cudaError_t into an error.
func (c *cudart) check(op string, r uintptr) error {
	code := int32(r)
	if code == 0 {
		return nil
	}
	msg, _, _ := purego.SyscallN(c.getErrorString, uintptr(code))
	return &CUDAError{Op: op, Code: int(code), Message: native.GoString(msg)}
}

func (c *cudart) DeviceCount() (int, error) {
	var n int32
	r, _, _ := purego.SyscallN(c.getDeviceCount, uintptr(unsafe.Pointer(&n)))
	if err := c.check("cudaGetDeviceCount", r); err != nil {
		return 0, err
	}
	return int(n), nil
}

func (c *cudart) SetDevice(ordinal int) error {
	r, _, _ := purego.SyscallN(c.setDevice, uintptr(ordinal))
	return c.check("cudaSetDevice", r)
}

func (c *cudart) DeviceProperties(ordinal int) (deviceProps, error) {
	buf := make([]byte, devicePropBytes)
	fn := c.getDeviceProperties
	if c.getDevicePropertiesV2 != 0 {
		fn = c.getDevicePropertiesV2
	}
	r, _, _ := purego.SyscallN(fn, uintptr(unsafe.Pointer(&buf[0])), uintptr(ordinal))
	if err := c.check("cudaGetDeviceProperties", r); err != nil {
		return deviceProps{}, err
	}
	p := deviceProps{name: native.Text(buf[:256]), totalMemory: *(*uint64)(unsafe.Pointer(&buf[totalGlobalMemOffset]))}
	copy(p.uuid[:], buf[uuidOffset:uuidOffset+16])
	return p, nil
}

func (c *cudart) PCIBusID(ordinal int) (string, error) {
	if c.pciBusID == 0 {
		return "", nil
	}
	buf := make([]byte, 64)
	r, _, _ := purego.SyscallN(c.pciBusID, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(ordinal))
	if err := c.check("cudaDeviceGetPCIBusId", r); err != nil {
		return "", err
	}
	return native.Text(buf), nil
}

func (c *cudart) DeviceAttribute(attr, ordinal int) (int, error) {
	var v int32
	r, _, _ := purego.SyscallN(c.deviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(ordinal))
	if err := c.check("cudaDeviceGetAttribute", r); err != nil {
		return 0, err
	}
	return int(v), nil
}

func (c *cudart) RuntimeVersion() (int, error) {
	var v int32
	r, _, _ := purego.SyscallN(c.runtimeGetVersion, uintptr(unsafe.Pointer(&v)))
	return int(v), c.check("cudaRuntimeGetVersion", r)
}

func (c *cudart) DriverVersion() (int, error) {
	var v int32
	r, _, _ := purego.SyscallN(c.driverGetVersion, uintptr(unsafe.Pointer(&v)))
	return int(v), c.check("cudaDriverGetVersion", r)
}

func (c *cudart) MemInfo() (uint64, uint64, error) {
	var free, total uintptr
	r, _, _ := purego.SyscallN(c.memGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total)))
	return uint64(free), uint64(total), c.check("cudaMemGetInfo", r)
}

func (c *cudart) Malloc(size uintptr) (uintptr, error) {
	var p uintptr
	r, _, _ := purego.SyscallN(c.malloc, uintptr(unsafe.Pointer(&p)), size)
	if err := c.check("cudaMalloc", r); err != nil {
		return 0, fmt.Errorf("allocate %d bytes: %w", size, err)
	}
	return p, nil
}

func (c *cudart) Free(p uintptr) error {
	r, _, _ := purego.SyscallN(c.free, p)
	return c.check("cudaFree", r)
}

func (c *cudart) MallocHost(size uintptr) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	r, _, _ := purego.SyscallN(c.mallocHost, uintptr(unsafe.Pointer(&p)), size)
	if err := c.check("cudaMallocHost", r); err != nil {
		return nil, fmt.Errorf("allocate %d pinned bytes: %w", size, err)
	}
	return p, nil
}

func (c *cudart) FreeHost(p unsafe.Pointer) error {
	r, _, _ := purego.SyscallN(c.freeHost, uintptr(p))
	return c.check("cudaFreeHost", r)
}

func (c *cudart) CopyToDevice(dst uintptr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	r, _, _ := purego.SyscallN(c.memcpy, dst, uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)), uintptr(hostToDevice))
	return c.check("cudaMemcpy", r)
}

func (c *cudart) CopyAsync(dst, src, n uintptr, kind copyKind, s stream) error {
	r, _, _ := purego.SyscallN(c.memcpyAsync, dst, src, n, uintptr(kind), uintptr(s))
	return c.check("cudaMemcpyAsync", r)
}

func (c *cudart) StreamCreate() (stream, error) {
	var s uintptr
	r, _, _ := purego.SyscallN(c.streamCreateWithFlags, uintptr(unsafe.Pointer(&s)), cudaStreamNonBlocking)
	return stream(s), c.check("cudaStreamCreateWithFlags", r)
}

func (c *cudart) StreamDestroy(s stream) error {
	r, _, _ := purego.SyscallN(c.streamDestroy, uintptr(s))
	return c.check("cudaStreamDestroy", r)
}

func (c *cudart) StreamQuery(s stream) (bool, error) {
	r, _, _ := purego.SyscallN(c.streamQuery, uintptr(s))
	if int32(r) == cudaErrorNotReady {
		return false, nil
	}
	return true, c.check("cudaStreamQuery", r)
}

func (c *cudart) EventCreate(blocking bool) (event, error) {
	var e uintptr
	flags := uintptr(cudaEventDisableTiming)
	if blocking {
		flags |= cudaEventBlockingSync
	}
	r, _, _ := purego.SyscallN(c.eventCreateWithFlags, uintptr(unsafe.Pointer(&e)), flags)
	return event(e), c.check("cudaEventCreateWithFlags", r)
}

func (c *cudart) StreamWaitEvent(s stream, e event) error {
	r, _, _ := purego.SyscallN(c.streamWaitEvent, uintptr(s), uintptr(e), 0)
	return c.check("cudaStreamWaitEvent", r)
}

func (c *cudart) Graphs() bool {
	return c.beginCapture != 0 && c.endCapture != 0 && c.graphInstantiate != 0 && c.graphLaunch != 0 &&
		c.graphExecDestroy != 0 && c.graphDestroy != 0
}

// cudaStreamCaptureModeThreadLocal: only the capturing thread's calls
// are restricted while it captures.
const cudaStreamCaptureModeThreadLocal = 1

func (c *cudart) BeginCapture(s stream) error {
	r, _, _ := purego.SyscallN(c.beginCapture, uintptr(s), cudaStreamCaptureModeThreadLocal)
	return c.check("cudaStreamBeginCapture", r)
}

func (c *cudart) EndCapture(s stream) (graph, error) {
	var g uintptr
	r, _, _ := purego.SyscallN(c.endCapture, uintptr(s), uintptr(unsafe.Pointer(&g)))
	return graph(g), c.check("cudaStreamEndCapture", r)
}

func (c *cudart) GraphInstantiate(g graph) (graphExec, error) {
	var x uintptr
	r, _, _ := purego.SyscallN(c.graphInstantiate, uintptr(unsafe.Pointer(&x)), uintptr(g), 0)
	return graphExec(x), c.check("cudaGraphInstantiateWithFlags", r)
}

func (c *cudart) GraphLaunch(x graphExec, s stream) error {
	r, _, _ := purego.SyscallN(c.graphLaunch, uintptr(x), uintptr(s))
	return c.check("cudaGraphLaunch", r)
}

func (c *cudart) GraphExecDestroy(x graphExec) error {
	r, _, _ := purego.SyscallN(c.graphExecDestroy, uintptr(x))
	return c.check("cudaGraphExecDestroy", r)
}

func (c *cudart) GraphDestroy(g graph) error {
	r, _, _ := purego.SyscallN(c.graphDestroy, uintptr(g))
	return c.check("cudaGraphDestroy", r)
}

func (c *cudart) EventDestroy(e event) error {
	r, _, _ := purego.SyscallN(c.eventDestroy, uintptr(e))
	return c.check("cudaEventDestroy", r)
}

func (c *cudart) EventRecord(e event, s stream) error {
	r, _, _ := purego.SyscallN(c.eventRecord, uintptr(e), uintptr(s))
	return c.check("cudaEventRecord", r)
}

func (c *cudart) EventSynchronize(e event) error {
	r, _, _ := purego.SyscallN(c.eventSync, uintptr(e))
	return c.check("cudaEventSynchronize", r)
}

func (c *cudart) EventQuery(e event) (bool, error) {
	r, _, _ := purego.SyscallN(c.eventQuery, uintptr(e))
	if int32(r) == cudaErrorNotReady {
		return false, nil
	}
	return true, c.check("cudaEventQuery", r)
}

func (c *cudart) BatchCopies() bool { return c.batchArgs != 0 }

// cudaMemcpyAttributes: srcAccessOrder, srcLocHint {type, id}, dstLocHint
// {type, id}, flags. Only the access order is set: stream order.
type memcpyAttributes [6]int32

const cudaMemcpySrcAccessOrderStream = 1

func (c *cudart) CopyBatchAsync(dsts, srcs, sizes []uintptr, s stream) error {
	n := len(dsts)
	if n == 0 {
		return nil
	}
	if c.batchArgs == 0 || len(srcs) != n || len(sizes) != n {
		return &CUDAError{Op: "cudaMemcpyBatchAsync", Code: 1, Message: "not available or mismatched arrays"}
	}
	attrs := memcpyAttributes{cudaMemcpySrcAccessOrderStream}
	var attrIdx, failIdx uintptr
	var r uintptr
	if c.batchArgs == 8 {
		r, _, _ = purego.SyscallN(c.memcpyBatch, uintptr(unsafe.Pointer(&dsts[0])), uintptr(unsafe.Pointer(&srcs[0])),
			uintptr(unsafe.Pointer(&sizes[0])), uintptr(n), uintptr(unsafe.Pointer(&attrs)),
			uintptr(unsafe.Pointer(&attrIdx)), 1, uintptr(s))
	} else {
		r, _, _ = purego.SyscallN(c.memcpyBatch, uintptr(unsafe.Pointer(&dsts[0])), uintptr(unsafe.Pointer(&srcs[0])),
			uintptr(unsafe.Pointer(&sizes[0])), uintptr(n), uintptr(unsafe.Pointer(&attrs)),
			uintptr(unsafe.Pointer(&attrIdx)), 1, uintptr(unsafe.Pointer(&failIdx)), uintptr(s))
	}
	return c.check("cudaMemcpyBatchAsync", r)
}
