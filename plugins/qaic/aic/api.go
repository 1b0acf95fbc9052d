package aic

import (
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// object is an opaque runtime handle: QAicContext*, QAicQueue*,
// QAicQpcObj*, QAicProgram* or QAicExecObj*.
type object uintptr

// ioData is QData: a runtime-owned byte range (the program's serialized
// I/O descriptor).
type ioData struct {
	size uintptr
	data uintptr
}

// qBuffer is QBuffer (QAicRuntimeTypes.h): size, buf, handle, offset,
// type; 32 bytes on 64-bit platforms. The plugin passes heap buffers
// (type 0) that live outside the Go heap.
type qBuffer struct {
	size   uintptr
	buf    unsafe.Pointer
	handle uint64
	offset uint32
	typ    uint32
}

// bufferMapping is QAicBufferMappings: one I/O buffer of a program.
type bufferMapping struct {
	name     uintptr // char*, runtime-owned
	index    uint32
	ioType   uint32
	size     uint32
	partial  bool
	_        [3]byte
	dataType uint32
	_        [4]byte
}

// ioBufferInfo is QAicIoBufferInfo.
type ioBufferInfo struct {
	count    uint32
	_        uint32
	mappings uintptr
}

// Buffer directions (QAicBufferIoTypeEnum).
const (
	ioInput  = 1
	ioOutput = 2
)

// Activation commands (QAicProgramActivationCmd).
const (
	activateFull   = 0
	deactivateFull = 1
)

// execObjDefault is QAIC_EXECOBJ_PROPERTIES_DEFAULT.
const execObjDefault = 0x04

// mapping is a decoded buffer mapping.
type mapping struct {
	name   string
	index  int
	ioType int
	size   int
}

// resources is what QResourceInfo reports about a device.
type resources struct {
	// dramTotalMB and dramFreeMB are in MiB, as QAicRuntimeTypes.h says.
	dramTotalMB, dramFreeMB uint64
	nspTotal, nspFree       int
}

// runtimeAPI is the AIC runtime surface the scheduler drives: the
// device-facing layer. *qaicLib implements it with purego; the tests bind
// the same C entry points in a fake libQAic.
type runtimeAPI interface {
	Version() string
	Resources(dev int32) (resources, error)
	// DeviceStatus is qaicGetDeviceInfo's device status; ok is false when
	// the runtime lacks the call.
	DeviceStatus(dev int32) (s DeviceStatus, ok bool, err error)
	CreateContext(devices []int32) (object, error)
	ReleaseContext(ctx object) error
	CreateQueue(ctx object, dev int32, threads uint32) (object, error)
	ReleaseQueue(q object) error
	// OpenQPC opens a QPC file; OpenQPCBytes one in memory that must stay
	// valid until CloseQPC.
	OpenQPC(path string) (object, error)
	OpenQPCBytes(b native.Mapped) (object, error)
	CloseQPC(qpc object) error
	// CreateProgram creates a program from qpc on dev with default
	// properties kept in props, which must outlive the program.
	CreateProgram(ctx object, dev int32, name string, qpc object, props native.Mapped) (object, error)
	LoadProgram(p object) error
	UnloadProgram(p object) error
	Activate(p object, on bool) error
	ReleaseProgram(p object) error
	IODescriptor(p object) (ioData, error)
	BufferMappings(p object) ([]mapping, error)
	CreateExecObj(ctx, p object, iod ioData) (object, error)
	ReleaseExecObj(e object) error
	SetData(e object, bufs []qBuffer) error
	// Enqueue submits e on q; ev, when not 0, is the event whose callback
	// the runtime calls when e completes.
	Enqueue(q, e, ev object) error
	// Events reports whether the event calls are there; CreateEvent makes
	// an event of kind (QAIC_EVENT_DEVICE_COMPLETE), ReleaseEvent frees it
	// and Arm clears it and sets its callback cb with user data user, for
	// the next submission.
	Events() bool
	CreateEvent(ctx object, kind uint32) (object, error)
	ReleaseEvent(ev object) error
	Arm(ev object, cb, user uintptr) error
	// Wait blocks until e completes or timeoutUs microseconds pass.
	Wait(e object, timeoutUs uint32) error
}
