package trt

import (
	_ "embed"
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// gatherPTX is the gather kernel (kernels/gather.ll compiled by llc's
// NVPTX backend): the driver compiles it for the GPU when it loads it, so
// the plugin needs no CUDA compiler.
//
//go:embed kernels/gather.ptx
var gatherPTX []byte

// gatherKernel is the kernel's entry point in gatherPTX.
const gatherKernel = "mlph_gather"

// gatherBlock is the gather kernel's block size: threads per row.
const gatherBlock = 256

// DefaultDriverPaths are tried in order for the CUDA driver API, which
// the gather kernel needs (the NVIDIA driver installs it).
var DefaultDriverPaths = []string{"libcuda.so.1", "libcuda.so"}

const driverHint = "install the NVIDIA driver (it ships libcuda.so.1), or set the plugin option " +
	"cuda_driver=/path/to/libcuda.so.1; or use gather=copies"

// module is a CUmodule; function a CUfunction.
type (
	module   uintptr
	function uintptr
)

// driverAPI is the part of the CUDA driver API the gather kernel uses.
// Modules load into the calling thread's current context: the CUDA
// runtime's primary context of its current device.
type driverAPI interface {
	LoadModule(ptx []byte) (module, error)
	Function(m module, name string) (function, error)
	UnloadModule(m module) error
	// Launch runs f on s with grid × block threads; params points to C
	// memory holding the array of pointers to each argument.
	Launch(f function, grid, block uint32, s stream, params unsafe.Pointer) error
}

// cuDriver binds libcuda's C API with purego.
type cuDriver struct {
	lib *native.Library

	init, getErrorString, moduleLoadData, moduleUnload, moduleGetFunction, launchKernel uintptr
}

var _ driverAPI = (*cuDriver)(nil)

// loadDriver opens the first loadable of paths, binds it and initializes
// the driver.
func loadDriver(paths []string) (*cuDriver, error) {
	lib, err := accel.OpenLibrary(plugin, "the CUDA driver (libcuda)", paths, driverHint)
	if err != nil {
		return nil, err
	}
	d := &cuDriver{lib: lib}
	if err := lib.Bind([]native.Symbol{
		{Name: "cuInit", Fn: &d.init},
		{Name: "cuGetErrorString", Fn: &d.getErrorString},
		{Name: "cuModuleLoadData", Fn: &d.moduleLoadData},
		{Name: "cuModuleUnload", Fn: &d.moduleUnload},
		{Name: "cuModuleGetFunction", Fn: &d.moduleGetFunction},
		{Name: "cuLaunchKernel", Fn: &d.launchKernel},
	}); err != nil {
		return nil, fmt.Errorf("tensorrt: bind libcuda: %w", err)
	}
	r, _, _ := purego.SyscallN(d.init, 0)
	if err := d.check("cuInit", r); err != nil {
		return nil, err
	}
	return d, nil
}

// check turns a CUresult into an error.
func (d *cuDriver) check(op string, r uintptr) error {
	code := int32(r)
	if code == 0 {
		return nil
	}
	var msg uintptr
	purego.SyscallN(d.getErrorString, uintptr(code), uintptr(unsafe.Pointer(&msg)))
	return &CUDAError{Op: op, Code: int(code), Message: native.GoString(msg)}
}

func (d *cuDriver) LoadModule(ptx []byte) (module, error) {
	text := native.CString(string(ptx))
	var m uintptr
	r, _, _ := purego.SyscallN(d.moduleLoadData, uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&text[0])))
	return module(m), d.check("cuModuleLoadData", r)
}

func (d *cuDriver) Function(m module, name string) (function, error) {
	n := native.CString(name)
	var f uintptr
	r, _, _ := purego.SyscallN(d.moduleGetFunction, uintptr(unsafe.Pointer(&f)), uintptr(m), uintptr(unsafe.Pointer(&n[0])))
	return function(f), d.check("cuModuleGetFunction", r)
}

func (d *cuDriver) UnloadModule(m module) error {
	r, _, _ := purego.SyscallN(d.moduleUnload, uintptr(m))
	return d.check("cuModuleUnload", r)
}

func (d *cuDriver) Launch(f function, grid, block uint32, s stream, params unsafe.Pointer) error {
	r, _, _ := purego.SyscallN(d.launchKernel, uintptr(f), uintptr(grid), 1, 1, uintptr(block), 1, 1, 0,
		uintptr(s), uintptr(params), 0)
	return d.check("cuLaunchKernel", r)
}
