package aic

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// DefaultLibraryPaths are tried in order when no library path is set.
var DefaultLibraryPaths = []string{"/opt/qti-aic/dev/lib/x86_64/libQAic.so", "libQAic.so"}

// qaicLib binds libQAic's C API with purego.
type qaicLib struct {
	lib *native.Library
	fn  struct {
		version, resources, createContext, releaseContext, createQueue, releaseQueue uintptr
		openQpc, openQpcFile, closeQpc, propsDefault, createProgram, loadProgram     uintptr
		unloadProgram, activation, releaseProgram, ioDescriptor, ioBufferInfo        uintptr
		createExecObj, releaseExecObj, setData, enqueue, wait                        uintptr
		// deviceInfo is qaicGetDeviceInfo, 0 in runtimes without it.
		deviceInfo uintptr
		// The event calls, for completion by callback; 0 when absent.
		createEvent, releaseEvent, eventClear, eventAddCallback, eventRemoveCallback uintptr
	}
}

var _ runtimeAPI = (*qaicLib)(nil)

// openRuntime dlopens the first loadable of paths and resolves the C API.
func openRuntime(paths []string) (*qaicLib, error) {
	lib, err := accel.OpenLibrary(plugin, "libQAic.so", paths, libraryHint)
	if err != nil {
		return nil, err
	}
	l := &qaicLib{lib: lib}
	f := &l.fn
	err = lib.Bind([]native.Symbol{
		{Name: "qaicGetAicVersion", Fn: &f.version}, {Name: "qaicGetResourceInfo", Fn: &f.resources},
		{Name: "qaicCreateContext", Fn: &f.createContext}, {Name: "qaicReleaseContext", Fn: &f.releaseContext},
		{Name: "qaicCreateQueue", Fn: &f.createQueue}, {Name: "qaicReleaseQueue", Fn: &f.releaseQueue},
		{Name: "qaicOpenQpc", Fn: &f.openQpc}, {Name: "qaicOpenQpcFile", Fn: &f.openQpcFile},
		{Name: "qaicCloseQpc", Fn: &f.closeQpc},
		{Name: "qaicProgramPropertiesInitDefault", Fn: &f.propsDefault}, {Name: "qaicCreateProgram", Fn: &f.createProgram},
		{Name: "qaicLoadProgram", Fn: &f.loadProgram}, {Name: "qaicUnloadProgram", Fn: &f.unloadProgram},
		{Name: "qaicRunActivationCmd", Fn: &f.activation}, {Name: "qaicReleaseProgram", Fn: &f.releaseProgram},
		{Name: "qaicProgramGetIoDescriptor", Fn: &f.ioDescriptor},
		{Name: "qaicProgramGetIoBufferInfo", Fn: &f.ioBufferInfo},
		{Name: "qaicCreateExecObj", Fn: &f.createExecObj}, {Name: "qaicReleaseExecObj", Fn: &f.releaseExecObj},
		{Name: "qaicExecObjSetData", Fn: &f.setData}, {Name: "qaicEnqueueExecObj", Fn: &f.enqueue},
		{Name: "qaicExecObjWaitForCompletion", Fn: &f.wait},
		{Name: "qaicGetDeviceInfo", Fn: &f.deviceInfo, Optional: true},
		{Name: "qaicCreateEvent", Fn: &f.createEvent, Optional: true},
		{Name: "qaicReleaseEvent", Fn: &f.releaseEvent, Optional: true},
		{Name: "qaicEventClear", Fn: &f.eventClear, Optional: true},
		{Name: "qaicEventAddCallback", Fn: &f.eventAddCallback, Optional: true},
		{Name: "qaicEventRemoveCallback", Fn: &f.eventRemoveCallback, Optional: true},
	})
	if err != nil {
		return nil, fmt.Errorf("qaic: bind libQAic: %w", err)
	}
	return l, nil
}

// result turns a QStatus into an error.
func result(op string, r uintptr) error {
	if s := Status(int32(r)); s != StatusSuccess {
		return &StatusError{Op: op, Status: s}
	}
	return nil
}

func (l *qaicLib) Version() string {
	var major, minor uint16
	var patch, variant uintptr
	r, _, _ := purego.SyscallN(l.fn.version, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor)),
		uintptr(unsafe.Pointer(&patch)), uintptr(unsafe.Pointer(&variant)))
	if result("qaicGetAicVersion", r) != nil {
		return "unknown"
	}
	return fmt.Sprintf("AIC runtime %d.%d.%s %s", major, minor, native.GoString(patch), native.GoString(variant))
}

// resourceInfoBytes exceeds sizeof(QResourceInfo) (56) for future fields.
const resourceInfoBytes = 256

func (l *qaicLib) Resources(dev int32) (resources, error) {
	var buf [resourceInfoBytes]byte
	r, _, _ := purego.SyscallN(l.fn.resources, uintptr(dev), uintptr(unsafe.Pointer(&buf[0])))
	if err := result("qaicGetResourceInfo", r); err != nil {
		return resources{}, err
	}
	// QResourceInfo: int32 id; uint64 dramTotal @8, dramFree @16; uint8
	// vcTotal @24, vcFree, nspTotal @26, nspFree @27; ...
	return resources{
		dramTotalMB: *(*uint64)(unsafe.Pointer(&buf[8])),
		dramFreeMB:  *(*uint64)(unsafe.Pointer(&buf[16])),
		nspTotal:    int(buf[26]),
		nspFree:     int(buf[27]),
	}, nil
}

// devInfoBytes exceeds sizeof(QDevInfo) (about 1.2 KiB) for future fields.
const devInfoBytes = 16 << 10

func (l *qaicLib) DeviceStatus(dev int32) (DeviceStatus, bool, error) {
	if l.fn.deviceInfo == 0 {
		return 0, false, nil
	}
	buf := make([]byte, devInfoBytes)
	r, _, _ := purego.SyscallN(l.fn.deviceInfo, uintptr(dev), uintptr(unsafe.Pointer(&buf[0])))
	if err := result("qaicGetDeviceInfo", r); err != nil {
		return 0, true, err
	}
	// QDevInfo starts with its QDevStatus.
	return DeviceStatus(*(*int32)(unsafe.Pointer(&buf[0]))), true, nil
}

func (l *qaicLib) CreateContext(devices []int32) (object, error) {
	var ctx uintptr
	r, _, _ := purego.SyscallN(l.fn.createContext, uintptr(unsafe.Pointer(&ctx)), 0, uintptr(len(devices)),
		uintptr(unsafe.Pointer(&devices[0])), 0, 0, 0, 0)
	return object(ctx), result("qaicCreateContext", r)
}

func (l *qaicLib) ReleaseContext(ctx object) error {
	r, _, _ := purego.SyscallN(l.fn.releaseContext, uintptr(ctx))
	return result("qaicReleaseContext", r)
}

func (l *qaicLib) CreateQueue(ctx object, dev int32, threads uint32) (object, error) {
	// QAicQueueProperties: properties (multi-threaded queue), threads.
	props := [2]uint32{1, threads}
	var q uintptr
	r, _, _ := purego.SyscallN(l.fn.createQueue, uintptr(ctx), uintptr(unsafe.Pointer(&q)),
		uintptr(unsafe.Pointer(&props)), uintptr(dev))
	return object(q), result("qaicCreateQueue", r)
}

func (l *qaicLib) ReleaseQueue(q object) error {
	r, _, _ := purego.SyscallN(l.fn.releaseQueue, uintptr(q))
	return result("qaicReleaseQueue", r)
}

func (l *qaicLib) OpenQPC(path string) (object, error) {
	var qpc uintptr
	p := native.CString(path)
	r, _, _ := purego.SyscallN(l.fn.openQpcFile, uintptr(unsafe.Pointer(&qpc)), uintptr(unsafe.Pointer(&p[0])))
	return object(qpc), result("qaicOpenQpcFile", r)
}

func (l *qaicLib) OpenQPCBytes(b native.Mapped) (object, error) {
	var qpc uintptr
	data := b.Bytes()
	if len(data) == 0 {
		return 0, &StatusError{Op: "qaicOpenQpc", Status: StatusInval}
	}
	// copy=false: the buffer lives outside the Go heap until CloseQPC.
	r, _, _ := purego.SyscallN(l.fn.openQpc, uintptr(unsafe.Pointer(&qpc)), uintptr(unsafe.Pointer(&data[0])),
		uintptr(len(data)), 0)
	return object(qpc), result("qaicOpenQpc", r)
}

func (l *qaicLib) CloseQPC(qpc object) error {
	r, _, _ := purego.SyscallN(l.fn.closeQpc, uintptr(qpc))
	return result("qaicCloseQpc", r)
}

func (l *qaicLib) CreateProgram(ctx object, dev int32, name string, qpc object, props native.Mapped) (object, error) {
	pb := props.Bytes()
	r, _, _ := purego.SyscallN(l.fn.propsDefault, uintptr(unsafe.Pointer(&pb[0])))
	if err := result("qaicProgramPropertiesInitDefault", r); err != nil {
		return 0, err
	}
	n := native.CString(name)
	var p uintptr
	r, _, _ = purego.SyscallN(l.fn.createProgram, uintptr(ctx), uintptr(unsafe.Pointer(&p)),
		uintptr(unsafe.Pointer(&pb[0])), uintptr(dev), uintptr(unsafe.Pointer(&n[0])), uintptr(qpc))
	return object(p), result("qaicCreateProgram", r)
}

func (l *qaicLib) LoadProgram(p object) error {
	r, _, _ := purego.SyscallN(l.fn.loadProgram, uintptr(p))
	return result("qaicLoadProgram", r)
}

func (l *qaicLib) UnloadProgram(p object) error {
	r, _, _ := purego.SyscallN(l.fn.unloadProgram, uintptr(p))
	return result("qaicUnloadProgram", r)
}

func (l *qaicLib) Activate(p object, on bool) error {
	cmd := uintptr(deactivateFull)
	if on {
		cmd = activateFull
	}
	r, _, _ := purego.SyscallN(l.fn.activation, uintptr(p), cmd)
	return result("qaicRunActivationCmd", r)
}

func (l *qaicLib) ReleaseProgram(p object) error {
	r, _, _ := purego.SyscallN(l.fn.releaseProgram, uintptr(p))
	return result("qaicReleaseProgram", r)
}

func (l *qaicLib) IODescriptor(p object) (ioData, error) {
	var d ioData
	r, _, _ := purego.SyscallN(l.fn.ioDescriptor, uintptr(p), uintptr(unsafe.Pointer(&d)))
	return d, result("qaicProgramGetIoDescriptor", r)
}

func (l *qaicLib) BufferMappings(p object) ([]mapping, error) {
	var info uintptr
	r, _, _ := purego.SyscallN(l.fn.ioBufferInfo, uintptr(p), uintptr(unsafe.Pointer(&info)))
	if err := result("qaicProgramGetIoBufferInfo", r); err != nil {
		return nil, err
	}
	if info == 0 {
		return nil, &StatusError{Op: "qaicProgramGetIoBufferInfo", Status: StatusInval}
	}
	bi := (*ioBufferInfo)(native.Pointer(info))
	raw := unsafe.Slice((*bufferMapping)(native.Pointer(bi.mappings)), bi.count)
	out := make([]mapping, len(raw))
	for i, m := range raw {
		out[i] = mapping{name: native.GoString(m.name), index: int(m.index), ioType: int(m.ioType), size: int(m.size)}
	}
	return out, nil
}

func (l *qaicLib) CreateExecObj(ctx, p object, iod ioData) (object, error) {
	props := uint32(execObjDefault)
	var e uintptr
	r, _, _ := purego.SyscallN(l.fn.createExecObj, uintptr(ctx), uintptr(unsafe.Pointer(&e)),
		uintptr(unsafe.Pointer(&props)), uintptr(p), uintptr(unsafe.Pointer(&iod)), 0, 0)
	return object(e), result("qaicCreateExecObj", r)
}

func (l *qaicLib) ReleaseExecObj(e object) error {
	r, _, _ := purego.SyscallN(l.fn.releaseExecObj, uintptr(e))
	return result("qaicReleaseExecObj", r)
}

func (l *qaicLib) SetData(e object, bufs []qBuffer) error {
	r, _, _ := purego.SyscallN(l.fn.setData, uintptr(e), uintptr(len(bufs)), uintptr(unsafe.Pointer(&bufs[0])))
	return result("qaicExecObjSetData", r)
}

func (l *qaicLib) Enqueue(q, e, ev object) error {
	r, _, _ := purego.SyscallN(l.fn.enqueue, uintptr(q), uintptr(e), uintptr(ev))
	return result("qaicEnqueueExecObj", r)
}

func (l *qaicLib) Events() bool {
	f := &l.fn
	return f.createEvent != 0 && f.releaseEvent != 0 && f.eventClear != 0 && f.eventAddCallback != 0 &&
		f.eventRemoveCallback != 0
}

func (l *qaicLib) CreateEvent(ctx object, kind uint32) (object, error) {
	var ev uintptr
	r, _, _ := purego.SyscallN(l.fn.createEvent, uintptr(ctx), uintptr(unsafe.Pointer(&ev)), uintptr(kind))
	return object(ev), result("qaicCreateEvent", r)
}

func (l *qaicLib) ReleaseEvent(ev object) error {
	r, _, _ := purego.SyscallN(l.fn.releaseEvent, uintptr(ev))
	return result("qaicReleaseEvent", r)
}

func (l *qaicLib) Arm(ev object, cb, user uintptr) error {
	r, _, _ := purego.SyscallN(l.fn.eventClear, uintptr(ev))
	if err := result("qaicEventClear", r); err != nil {
		return err
	}
	purego.SyscallN(l.fn.eventRemoveCallback, uintptr(ev), cb)
	r, _, _ = purego.SyscallN(l.fn.eventAddCallback, uintptr(ev), cb, user)
	return result("qaicEventAddCallback", r)
}

func (l *qaicLib) Wait(e object, timeoutUs uint32) error {
	r, _, _ := purego.SyscallN(l.fn.wait, uintptr(e), uintptr(timeoutUs))
	return result("qaicExecObjWaitForCompletion", r)
}
