package trt

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// TestFakeRefusesWhatAGPURefuses drives the fake CUDA runtime's graph and
// driver calls directly: a wrong use must fail there as it would on a GPU,
// or the plugin's tests could pass against the fake and fail on hardware.
func TestFakeRefusesWhatAGPURefuses(t *testing.T) {
	t.Parallel()
	// Each subtest runs on one OS thread, which keeps its CUDA state
	// (current device, capture), with a fresh fake and a stream.
	type env struct {
		f  *fake
		st uintptr
	}
	setup := func(t *testing.T, withDevice bool) *env {
		runtime.LockOSThread()
		t.Cleanup(runtime.UnlockOSThread)
		f := newFake(t, 2, 1<<20)
		e := &env{f: f}
		if withDevice {
			require.Zero(t, f.Call("cudaSetDevice", 0))
		}
		require.Zero(t, f.Call("cudaStreamCreateWithFlags", uintptr(unsafe.Pointer(&e.st)), 1))
		t.Cleanup(func() {
			f.Call("cudaStreamSynchronize", e.st)
			f.Call("cudaStreamDestroy", e.st)
		})
		return e
	}
	ptx := append(append([]byte(nil), gatherPTX...), 0)
	code := func(r uintptr) int32 { return int32(r) }

	t.Run("module without a current context", func(t *testing.T) {
		e := setup(t, false)
		var m uintptr
		assert.Equal(t, int32(201), code(e.f.Call("cuModuleLoadData", uintptr(unsafe.Pointer(&m)),
			uintptr(unsafe.Pointer(&ptx[0])))))
	})
	t.Run("PTX that does not compile, an entry that is not there", func(t *testing.T) {
		e := setup(t, true)
		var m uintptr
		junk := []byte("__global__ void f() {}\x00")
		assert.Equal(t, int32(218), code(e.f.Call("cuModuleLoadData", uintptr(unsafe.Pointer(&m)),
			uintptr(unsafe.Pointer(&junk[0])))))
		require.Zero(t, e.f.Call("cuModuleLoadData", uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&ptx[0]))))
		defer e.f.Call("cuModuleUnload", m)
		var fn uintptr
		name := []byte("mlph_scatter\x00")
		assert.Equal(t, int32(500), code(e.f.Call("cuModuleGetFunction", uintptr(unsafe.Pointer(&fn)), m,
			uintptr(unsafe.Pointer(&name[0])))))
	})
	t.Run("launches a GPU rejects", func(t *testing.T) {
		e := setup(t, true)
		var m, fn uintptr
		require.Zero(t, e.f.Call("cuModuleLoadData", uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&ptx[0]))))
		defer e.f.Call("cuModuleUnload", m)
		name := []byte(gatherKernel + "\x00")
		require.Zero(t, e.f.Call("cuModuleGetFunction", uintptr(unsafe.Pointer(&fn)), m, uintptr(unsafe.Pointer(&name[0]))))
		params := make([]byte, 64) // Go memory is fine for the arguments: they are copied at launch
		args := [3]uintptr{uintptr(unsafe.Pointer(&params[0])), uintptr(unsafe.Pointer(&params[8])),
			uintptr(unsafe.Pointer(&params[16]))}
		assert.Equal(t, int32(1), code(e.f.Call("cuLaunchKernel", fn, 1, 1, 1, 2048, 1, 1, 0, e.st,
			uintptr(unsafe.Pointer(&args[0])), 0)), "2048 threads per block")
		var other uintptr
		require.Zero(t, e.f.Call("cudaSetDevice", 1))
		require.Zero(t, e.f.Call("cudaStreamCreateWithFlags", uintptr(unsafe.Pointer(&other)), 1))
		defer e.f.Call("cudaStreamDestroy", other)
		assert.Equal(t, int32(400), code(e.f.Call("cuLaunchKernel", fn, 1, 1, 1, 256, 1, 1, 0, other,
			uintptr(unsafe.Pointer(&args[0])), 0)), "module of device 0, stream of device 1")
	})
	t.Run("a gather from Go memory is an illegal address", func(t *testing.T) {
		e := setup(t, true)
		var m, fn, dst, table uintptr
		require.Zero(t, e.f.Call("cuModuleLoadData", uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&ptx[0]))))
		defer e.f.Call("cuModuleUnload", m)
		name := []byte(gatherKernel + "\x00")
		require.Zero(t, e.f.Call("cuModuleGetFunction", uintptr(unsafe.Pointer(&fn)), m, uintptr(unsafe.Pointer(&name[0]))))
		require.Zero(t, e.f.Call("cudaMalloc", uintptr(unsafe.Pointer(&dst)), 16))
		require.Zero(t, e.f.Call("cudaMallocHost", uintptr(unsafe.Pointer(&table)), 8))
		goRow := make([]byte, 16)
		*(*uintptr)(native.Pointer(table)) = uintptr(unsafe.Pointer(&goRow[0]))
		vals := [3]uint64{uint64(dst), uint64(table), 16}
		args := [3]uintptr{uintptr(unsafe.Pointer(&vals[0])), uintptr(unsafe.Pointer(&vals[1])),
			uintptr(unsafe.Pointer(&vals[2]))}
		require.Zero(t, e.f.Call("cuLaunchKernel", fn, 1, 1, 1, 256, 1, 1, 0, e.st, uintptr(unsafe.Pointer(&args[0])), 0))
		assert.Equal(t, int32(719), code(e.f.Call("cudaStreamSynchronize", e.st)), "a sticky error, as after a fault")
		runtime.KeepAlive(goRow)
		n, first := e.f.Violations()
		assert.Equal(t, 1, n)
		assert.Contains(t, first, "illegal address")
		e.f.ForgetViolations()
	})
	t.Run("calls a capture does not allow", func(t *testing.T) {
		e := setup(t, true)
		require.Zero(t, e.f.Call("cudaStreamBeginCapture", e.st, 1))
		var p uintptr
		assert.Equal(t, int32(900), code(e.f.Call("cudaMalloc", uintptr(unsafe.Pointer(&p)), 16)))
		var g uintptr
		assert.Equal(t, int32(901), code(e.f.Call("cudaStreamEndCapture", e.st, uintptr(unsafe.Pointer(&g)))),
			"the capture is invalidated")
		assert.Zero(t, g)
	})
	t.Run("a graph replaying freed memory", func(t *testing.T) {
		e := setup(t, true)
		var src, dst, g, x uintptr
		require.Zero(t, e.f.Call("cudaMalloc", uintptr(unsafe.Pointer(&src)), 16))
		require.Zero(t, e.f.Call("cudaMalloc", uintptr(unsafe.Pointer(&dst)), 16))
		require.Zero(t, e.f.Call("cudaStreamBeginCapture", e.st, 1))
		require.Zero(t, e.f.Call("cudaMemcpyAsync", dst, src, 16, uintptr(deviceToDevice), e.st))
		require.Zero(t, e.f.Call("cudaStreamEndCapture", e.st, uintptr(unsafe.Pointer(&g))))
		require.Zero(t, e.f.Call("cudaGraphInstantiateWithFlags", uintptr(unsafe.Pointer(&x)), g, 0))
		require.Zero(t, e.f.Call("cudaFree", src))
		assert.Equal(t, int32(9001), code(e.f.Call("cudaGraphLaunch", x, e.st)))
		e.f.ForgetViolations()
		assert.Zero(t, e.f.Call("cudaGraphExecDestroy", x))
		assert.Zero(t, e.f.Call("cudaGraphDestroy", g))
		assert.Zero(t, e.f.Call("cudaFree", dst))
	})
}
