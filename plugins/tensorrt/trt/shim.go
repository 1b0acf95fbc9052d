package trt

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// DefaultShimPaths are tried in order when no shim path is configured.
var DefaultShimPaths = []string{"libmlph_trt.so"}

const shimHint = "build the TensorRT shim where TensorRT is installed with " +
	"`make tensorrt-shim` (needs NvInferRuntime.h and libnvinfer, see docs/tensorrt.md) " +
	"and set the plugin option shim=/path/to/libmlph_trt.so or put it on LD_LIBRARY_PATH"

// shim binds the extern "C" functions of mlph_trt.h with purego.
type shim struct {
	lib *native.Library

	abi, version, runtimeCreate, runtimeDestroy, deserialize, engineDestroy uintptr
	numIO, ioName, ioMode, ioDType, ioShape, numProfiles, profileShape      uintptr
	contextCreate, contextDestroy, setProfile, setInputShape                uintptr
	setTensorAddress, enqueue, tensorShape                                  uintptr
	initPlugins, loadPluginLibrary, build, blobSize, blobData, blobFree     uintptr
}

var _ trtAPI = (*shim)(nil)

// loadShim opens the first loadable of paths, binds it and checks its ABI.
func loadShim(paths []string) (*shim, error) {
	lib, err := accel.OpenLibrary(plugin, "the TensorRT shim (libmlph_trt.so)", paths, shimHint)
	if err != nil {
		return nil, err
	}
	s := &shim{lib: lib}
	err = lib.Bind(s.symbols())
	if err != nil {
		return nil, fmt.Errorf("tensorrt: bind shim: %w", err)
	}
	r, _, _ := purego.SyscallN(s.abi)
	if got := int32(r); got != shimABI {
		return nil, fmt.Errorf("tensorrt: shim %s has ABI %d, the plugin needs %d: rebuild it with `make tensorrt-shim`",
			lib.Path, got, shimABI)
	}
	return s, nil
}

// symbols lists every function of mlph_trt.h and where it binds.
func (s *shim) symbols() []native.Symbol {
	return []native.Symbol{
		{Name: "mlph_trt_abi", Fn: &s.abi},
		{Name: "mlph_trt_version", Fn: &s.version},
		{Name: "mlph_trt_runtime_create", Fn: &s.runtimeCreate},
		{Name: "mlph_trt_runtime_destroy", Fn: &s.runtimeDestroy},
		{Name: "mlph_trt_engine_deserialize", Fn: &s.deserialize},
		{Name: "mlph_trt_engine_destroy", Fn: &s.engineDestroy},
		{Name: "mlph_trt_engine_num_io", Fn: &s.numIO},
		{Name: "mlph_trt_engine_io_name", Fn: &s.ioName},
		{Name: "mlph_trt_engine_io_mode", Fn: &s.ioMode},
		{Name: "mlph_trt_engine_io_dtype", Fn: &s.ioDType},
		{Name: "mlph_trt_engine_io_shape", Fn: &s.ioShape},
		{Name: "mlph_trt_engine_num_profiles", Fn: &s.numProfiles},
		{Name: "mlph_trt_engine_profile_shape", Fn: &s.profileShape},
		{Name: "mlph_trt_context_create", Fn: &s.contextCreate},
		{Name: "mlph_trt_context_destroy", Fn: &s.contextDestroy},
		{Name: "mlph_trt_context_set_profile", Fn: &s.setProfile},
		{Name: "mlph_trt_context_set_input_shape", Fn: &s.setInputShape},
		{Name: "mlph_trt_context_set_tensor_address", Fn: &s.setTensorAddress},
		{Name: "mlph_trt_context_enqueue", Fn: &s.enqueue},
		{Name: "mlph_trt_context_tensor_shape", Fn: &s.tensorShape},
		{Name: "mlph_trt_init_plugins", Fn: &s.initPlugins},
		{Name: "mlph_trt_load_plugin_library", Fn: &s.loadPluginLibrary},
		{Name: "mlph_trt_build", Fn: &s.build},
		{Name: "mlph_trt_blob_size", Fn: &s.blobSize},
		{Name: "mlph_trt_blob_data", Fn: &s.blobData},
		{Name: "mlph_trt_blob_free", Fn: &s.blobFree},
	}
}

// status turns a shim status (0 or -1) and its message into an error.
func status(op string, r uintptr, errBuf []byte) error {
	if int32(r) == 0 {
		return nil
	}
	return &ShimError{Op: op, Message: native.Text(errBuf)}
}

// handleOrError wraps a handle-returning shim call.
func handleOrError(op string, r uintptr, errBuf []byte) (handle, error) {
	if r == 0 {
		return 0, &ShimError{Op: op, Message: native.Text(errBuf)}
	}
	return handle(r), nil
}

func (s *shim) Version() int {
	r, _, _ := purego.SyscallN(s.version)
	return int(int32(r))
}

func (s *shim) RuntimeCreate() (handle, error) {
	buf := make([]byte, errBufBytes)
	r, _, _ := purego.SyscallN(s.runtimeCreate, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return handleOrError("mlph_trt_runtime_create", r, buf)
}

func (s *shim) RuntimeDestroy(rt handle) { purego.SyscallN(s.runtimeDestroy, uintptr(rt)) }

func (s *shim) Deserialize(rt handle, plan []byte) (handle, error) {
	if len(plan) == 0 {
		return 0, &ShimError{Op: "mlph_trt_engine_deserialize", Message: "empty plan"}
	}
	buf := make([]byte, errBufBytes)
	r, _, _ := purego.SyscallN(s.deserialize, uintptr(rt), uintptr(unsafe.Pointer(&plan[0])), uintptr(len(plan)),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return handleOrError("mlph_trt_engine_deserialize", r, buf)
}

func (s *shim) EngineDestroy(e handle) { purego.SyscallN(s.engineDestroy, uintptr(e)) }

func (s *shim) NumIO(e handle) int {
	r, _, _ := purego.SyscallN(s.numIO, uintptr(e))
	return int(int32(r))
}

func (s *shim) IOName(e handle, i int) string {
	r, _, _ := purego.SyscallN(s.ioName, uintptr(e), uintptr(i))
	return native.GoString(r)
}

func (s *shim) IOMode(e handle, name []byte) int {
	r, _, _ := purego.SyscallN(s.ioMode, uintptr(e), uintptr(unsafe.Pointer(&name[0])))
	return int(int32(r))
}

func (s *shim) IODataType(e handle, name []byte) int {
	r, _, _ := purego.SyscallN(s.ioDType, uintptr(e), uintptr(unsafe.Pointer(&name[0])))
	return int(int32(r))
}

// dims converts a rank written by the shim into a shape.
func dims(op string, name []byte, r uintptr, d *[maxDims]int64) ([]int64, error) {
	rank := int32(r)
	if rank < 0 || rank > maxDims {
		return nil, &ShimError{Op: op, Message: fmt.Sprintf("no shape for tensor %q", native.Text(name))}
	}
	out := make([]int64, rank)
	copy(out, d[:rank])
	return out, nil
}

func (s *shim) IOShape(e handle, name []byte) ([]int64, error) {
	var d [maxDims]int64
	r, _, _ := purego.SyscallN(s.ioShape, uintptr(e), uintptr(unsafe.Pointer(&name[0])),
		uintptr(unsafe.Pointer(&d[0])), maxDims)
	return dims("mlph_trt_engine_io_shape", name, r, &d)
}

func (s *shim) NumProfiles(e handle) int {
	r, _, _ := purego.SyscallN(s.numProfiles, uintptr(e))
	return int(int32(r))
}

func (s *shim) ProfileShape(e handle, name []byte, profile, which int) ([]int64, error) {
	var d [maxDims]int64
	r, _, _ := purego.SyscallN(s.profileShape, uintptr(e), uintptr(unsafe.Pointer(&name[0])),
		uintptr(profile), uintptr(which), uintptr(unsafe.Pointer(&d[0])), maxDims)
	return dims("mlph_trt_engine_profile_shape", name, r, &d)
}

func (s *shim) ContextCreate(e handle) (handle, error) {
	buf := make([]byte, errBufBytes)
	r, _, _ := purego.SyscallN(s.contextCreate, uintptr(e), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return handleOrError("mlph_trt_context_create", r, buf)
}

func (s *shim) ContextDestroy(c handle) { purego.SyscallN(s.contextDestroy, uintptr(c)) }

func (s *shim) SetProfile(c handle, profile int, st stream) error {
	buf := make([]byte, errBufBytes)
	r, _, _ := purego.SyscallN(s.setProfile, uintptr(c), uintptr(profile), uintptr(st),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return status("mlph_trt_context_set_profile", r, buf)
}

func (s *shim) SetInputShape(c handle, name []byte, d []int64, errBuf []byte) error {
	r, _, _ := purego.SyscallN(s.setInputShape, uintptr(c), uintptr(unsafe.Pointer(&name[0])),
		uintptr(unsafe.Pointer(&d[0])), uintptr(len(d)), uintptr(unsafe.Pointer(&errBuf[0])), uintptr(len(errBuf)))
	return status("mlph_trt_context_set_input_shape", r, errBuf)
}

func (s *shim) TensorShape(c handle, name []byte, d *[maxDims]int64) (int, error) {
	r, _, _ := purego.SyscallN(s.tensorShape, uintptr(c), uintptr(unsafe.Pointer(&name[0])),
		uintptr(unsafe.Pointer(&d[0])), maxDims)
	rank := int(int32(r))
	if rank < 0 || rank > maxDims {
		return 0, &ShimError{Op: "mlph_trt_context_tensor_shape", Message: fmt.Sprintf("no shape for tensor %q", native.Text(name))}
	}
	return rank, nil
}

func (s *shim) SetTensorAddress(c handle, name []byte, addr uintptr) error {
	buf := make([]byte, errBufBytes)
	r, _, _ := purego.SyscallN(s.setTensorAddress, uintptr(c), uintptr(unsafe.Pointer(&name[0])), addr,
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return status("mlph_trt_context_set_tensor_address", r, buf)
}

func (s *shim) Enqueue(c handle, st stream, errBuf []byte) error {
	r, _, _ := purego.SyscallN(s.enqueue, uintptr(c), uintptr(st), uintptr(unsafe.Pointer(&errBuf[0])), uintptr(len(errBuf)))
	return status("mlph_trt_context_enqueue", r, errBuf)
}

func (s *shim) InitPlugins() error {
	buf := make([]byte, errBufBytes)
	r, _, _ := purego.SyscallN(s.initPlugins, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return status("mlph_trt_init_plugins", r, buf)
}

func (s *shim) LoadPluginLibrary(path string) error {
	buf := make([]byte, errBufBytes)
	p := native.CString(path)
	r, _, _ := purego.SyscallN(s.loadPluginLibrary, uintptr(unsafe.Pointer(&p[0])), uintptr(unsafe.Pointer(&buf[0])),
		uintptr(len(buf)))
	return status("mlph_trt_load_plugin_library", r, buf)
}

// cBuildOptions is mlph_trt_build_options.
type cBuildOptions struct {
	precision                    int32
	minBatch, optBatch, maxBatch int32
	profiles                     int32
	workspaceBytes               uint64
	calibrationCache             unsafe.Pointer // const char*, C memory or pinned Go memory for the call
	shapes                       unsafe.Pointer // const mlph_trt_input_shape*
	numShapes                    int32
}

// cInputShape is mlph_trt_input_shape.
type cInputShape struct {
	name        unsafe.Pointer // const char*
	rank        int32
	lo, opt, hi [maxDims]int64
}

func (s *shim) Build(onnx []byte, o BuildOptions) ([]byte, error) {
	if len(onnx) == 0 {
		return nil, &ShimError{Op: "mlph_trt_build", Message: "empty model"}
	}
	opts := cBuildOptions{precision: int32(o.Precision), minBatch: 1, optBatch: int32(o.MaxBatch),
		maxBatch: int32(o.MaxBatch), profiles: int32(o.Profiles), workspaceBytes: o.WorkspaceBytes}
	var cache []byte
	if o.CalibrationCache != "" {
		cache = native.CString(o.CalibrationCache)
		opts.calibrationCache = unsafe.Pointer(&cache[0])
	}
	shapes, names := cShapes(o.Shapes)
	if len(shapes) > 0 {
		opts.shapes, opts.numShapes = unsafe.Pointer(&shapes[0]), int32(len(shapes))
	}
	buf := make([]byte, errBufBytes)
	r, _, _ := purego.SyscallN(s.build, uintptr(unsafe.Pointer(&onnx[0])), uintptr(len(onnx)),
		uintptr(unsafe.Pointer(&opts)), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	runtime.KeepAlive(cache)
	runtime.KeepAlive(shapes)
	runtime.KeepAlive(names)
	if r == 0 {
		return nil, &ShimError{Op: "mlph_trt_build", Message: native.Text(buf)}
	}
	defer purego.SyscallN(s.blobFree, r)
	n, _, _ := purego.SyscallN(s.blobSize, r)
	data, _, _ := purego.SyscallN(s.blobData, r)
	return append([]byte(nil), native.Bytes(native.Pointer(data), int(n))...), nil
}

// cShapes converts profile ranges to the shim's structs; names holds the
// C strings they point to, to be kept alive for the call.
func cShapes(ranges []ShapeRange) (shapes []cInputShape, names [][]byte) {
	for _, r := range ranges {
		name := native.CString(r.Name)
		names = append(names, name)
		c := cInputShape{name: unsafe.Pointer(&name[0]), rank: int32(len(r.Max))}
		copy(c.lo[:], r.Min)
		copy(c.opt[:], r.Opt)
		copy(c.hi[:], r.Max)
		shapes = append(shapes, c)
	}
	return shapes, names
}
