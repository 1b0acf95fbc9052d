package trt

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// DefaultNVMLPaths are tried in order when no nvml path is configured:
// NVML comes with the driver.
var DefaultNVMLPaths = []string{"libnvidia-ml.so.1", "libnvidia-ml.so"}

const nvmlHint = "NVML (libnvidia-ml.so.1) comes with the NVIDIA driver; set the plugin option nvml=/path/to/libnvidia-ml.so.1"

// NVML return codes (nvmlReturn_t) the plugin tells apart.
const (
	nvmlSuccess      = 0
	nvmlNotSupported = 3
	nvmlNotFound     = 6
	// nvmlBufferBytes holds any name or UUID NVML writes
	// (NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE).
	nvmlBufferBytes = 96
	// nvmlPCIBusIDOffset is nvmlPciInfo_t.busId: after busIdLegacy[16]
	// and five unsigned ints; the struct is 68 bytes.
	nvmlPCIBusIDOffset = 36
	nvmlPCIInfoBytes   = 68
)

// nvml binds the few NVML calls that list MIG instances, with purego as
// libcudart is bound: the CUDA runtime sees a MIG instance only in a
// process it was made visible to (CUDA_VISIBLE_DEVICES=MIG-...), NVML
// sees them all.
type nvml struct {
	lib *native.Library

	init, shutdown, errorString, count, handleByIndex, name, uuid uintptr
	migMode, maxMigCount, migHandle, memoryInfo, pciInfo          uintptr
}

// NVMLError is a failed NVML call.
type NVMLError struct {
	Op      string
	Code    int
	Message string
}

func (e *NVMLError) Error() string {
	return fmt.Sprintf("tensorrt: %s: NVML error %d: %s", e.Op, e.Code, e.Message)
}

// loadNVML opens the first loadable of paths and binds its functions.
func loadNVML(paths []string) (*nvml, error) {
	lib, err := accel.OpenLibrary(plugin, "NVML (libnvidia-ml)", paths, nvmlHint)
	if err != nil {
		return nil, err
	}
	n := &nvml{lib: lib}
	err = lib.Bind([]native.Symbol{
		{Name: "nvmlInit_v2", Fn: &n.init},
		{Name: "nvmlShutdown", Fn: &n.shutdown},
		{Name: "nvmlErrorString", Fn: &n.errorString},
		{Name: "nvmlDeviceGetCount_v2", Fn: &n.count},
		{Name: "nvmlDeviceGetHandleByIndex_v2", Fn: &n.handleByIndex},
		{Name: "nvmlDeviceGetName", Fn: &n.name},
		{Name: "nvmlDeviceGetUUID", Fn: &n.uuid},
		{Name: "nvmlDeviceGetMigMode", Fn: &n.migMode},
		{Name: "nvmlDeviceGetMaxMigDeviceCount", Fn: &n.maxMigCount},
		{Name: "nvmlDeviceGetMigDeviceHandleByIndex", Fn: &n.migHandle},
		{Name: "nvmlDeviceGetMemoryInfo", Fn: &n.memoryInfo},
		{Name: "nvmlDeviceGetPciInfo_v3", Fn: &n.pciInfo},
	})
	if err != nil {
		return nil, fmt.Errorf("tensorrt: bind NVML: %w", err)
	}
	return n, nil
}

// call runs an NVML function and turns its nvmlReturn_t into an error.
func (n *nvml) call(op string, fn uintptr, args ...uintptr) (int, error) {
	r, _, _ := purego.SyscallN(fn, args...)
	code := int(int32(r))
	if code == nvmlSuccess {
		return code, nil
	}
	msg, _, _ := purego.SyscallN(n.errorString, uintptr(code))
	return code, &NVMLError{Op: op, Code: code, Message: native.GoString(msg)}
}

// text reads a NUL-terminated string NVML writes into a buffer.
func (n *nvml) text(op string, fn, dev uintptr) (string, error) {
	buf := make([]byte, nvmlBufferBytes)
	if _, err := n.call(op, fn, dev, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))); err != nil {
		return "", err
	}
	return native.Text(buf), nil
}

// migInstance is one MIG instance as NVML lists it.
type migInstance struct {
	// UUID is the instance's, as CUDA_VISIBLE_DEVICES takes it
	// ("MIG-...").
	UUID string
	// Name is NVML's name of the instance, its GPU's with the profile:
	// "NVIDIA H100 80GB HBM3 MIG 1g.10gb"; Profile is "1g.10gb".
	Name, Profile string
	MemoryBytes   uint64
	// GPU is its GPU's NVML index, GPUUUID that GPU's UUID and PCIBusID
	// its PCI address as sysfs spells it.
	GPU      int
	GPUUUID  string
	PCIBusID string
}

// migInstances lists the MIG instances of every GPU in MIG mode, GPU by
// GPU, in NVML's order of their slots. GPUs that cannot do MIG, or have
// it off, have none.
func (n *nvml) migInstances() (out []migInstance, err error) {
	if _, err := n.call("nvmlInit_v2", n.init); err != nil {
		return nil, err
	}
	defer func() {
		if _, serr := n.call("nvmlShutdown", n.shutdown); serr != nil {
			err = errors.Join(err, serr)
		}
	}()
	var count uint32
	if _, err := n.call("nvmlDeviceGetCount_v2", n.count, uintptr(unsafe.Pointer(&count))); err != nil {
		return nil, err
	}
	for g := range int(count) {
		found, err := n.gpuInstances(g)
		if err != nil {
			return out, fmt.Errorf("GPU %d: %w", g, err)
		}
		out = append(out, found...)
	}
	return out, nil
}

// gpuInstances lists the MIG instances of GPU g.
func (n *nvml) gpuInstances(g int) ([]migInstance, error) {
	var gpu uintptr
	if _, err := n.call("nvmlDeviceGetHandleByIndex_v2", n.handleByIndex, uintptr(g), uintptr(unsafe.Pointer(&gpu))); err != nil {
		return nil, err
	}
	var current, pending uint32
	code, err := n.call("nvmlDeviceGetMigMode", n.migMode, gpu, uintptr(unsafe.Pointer(&current)), uintptr(unsafe.Pointer(&pending)))
	if code == nvmlNotSupported || (err == nil && current == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	gpuUUID, err := n.text("nvmlDeviceGetUUID", n.uuid, gpu)
	if err != nil {
		return nil, err
	}
	pci := make([]byte, nvmlPCIInfoBytes)
	busID := ""
	if _, err := n.call("nvmlDeviceGetPciInfo_v3", n.pciInfo, gpu, uintptr(unsafe.Pointer(&pci[0]))); err == nil {
		busID = accel.NormalizePCIAddress(native.Text(pci[nvmlPCIBusIDOffset:]))
	}
	var slots uint32
	if _, err := n.call("nvmlDeviceGetMaxMigDeviceCount", n.maxMigCount, gpu, uintptr(unsafe.Pointer(&slots))); err != nil {
		return nil, err
	}
	var out []migInstance
	for s := range int(slots) {
		var mig uintptr
		code, err := n.call("nvmlDeviceGetMigDeviceHandleByIndex", n.migHandle, gpu, uintptr(s), uintptr(unsafe.Pointer(&mig)))
		if code == nvmlNotFound {
			continue // an empty slot
		}
		if err != nil {
			return nil, err
		}
		m := migInstance{GPU: g, GPUUUID: gpuUUID, PCIBusID: busID}
		if m.UUID, err = n.text("nvmlDeviceGetUUID", n.uuid, mig); err != nil {
			return nil, err
		}
		if m.Name, err = n.text("nvmlDeviceGetName", n.name, mig); err != nil {
			return nil, err
		}
		m.Profile = migProfile(m.Name)
		var mem [3]uint64 // nvmlMemory_t: total, free, used
		if _, err := n.call("nvmlDeviceGetMemoryInfo", n.memoryInfo, mig, uintptr(unsafe.Pointer(&mem[0]))); err != nil {
			return nil, err
		}
		m.MemoryBytes = mem[0]
		out = append(out, m)
	}
	return out, nil
}
