package trt

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// fakeObjects are the fake CUDA runtime and shim, compiled once per test
// binary.
var fakeObjects = acceltest.NewObjects("the fake CUDA runtime and TensorRT shim", []string{"-I", "../shim"},
	filepath.Join("testdata", "fake", "fakecudart.c"), filepath.Join("testdata", "fake", "faketrt.c"),
	filepath.Join("testdata", "fake", "fakenvml.c"))

func TestMain(m *testing.M) {
	code := m.Run()
	fakeObjects.Remove()
	os.Exit(code)
}

// fake is one private instance of the fake CUDA runtime (the embedded Lib,
// which holds the kernel gate) and TensorRT shim.
type fake struct {
	*acceltest.Lib
	tr         *acceltest.Lib
	cudartPath string
	shimPath   string
}

// newFake links a private copy of the fakes with devices devices of mem
// bytes each. It skips the test when gcc is missing.
func newFake(t testing.TB, devices int, mem int64) *fake {
	t.Helper()
	fakeObjects.Dir(t)
	dir := t.TempDir()
	n := acceltest.NextCopy()
	cudart := filepath.Join(dir, fmt.Sprintf("libfakecudart%d.so", n))
	shimLib := filepath.Join(dir, fmt.Sprintf("libfaketrt%d.so", n))
	acceltest.Link(t, cudart, fakeObjects.Object("fakecudart.c"), "-Wl,-soname,"+filepath.Base(cudart))
	acceltest.Link(t, shimLib, fakeObjects.Object("faketrt.c"), cudart, "-Xlinker", "-rpath", "-Xlinker", dir)
	// Load order matters as in production: libcudart first, then the shim,
	// whose dependency on it resolves to the copy already loaded.
	f := &fake{Lib: acceltest.Open(t, cudart), cudartPath: cudart, shimPath: shimLib}
	f.tr = acceltest.Open(t, shimLib)
	f.Call("fakecuda_configure", uintptr(devices), uintptr(mem))
	f.CheckViolations(t, "the fake CUDA runtime")
	return f
}

// config returns a Config that loads this fake.
func (f *fake) config() Config {
	c := DefaultConfig()
	c.CudartPaths = []string{f.cudartPath}
	c.ShimPaths = []string{f.shimPath}
	// The fake runtime holds the driver API's entry points too.
	c.DriverPaths = []string{f.cudartPath}
	// No NVML: a machine's own would list its MIG instances (see newNVML).
	c.NVMLPaths = []string{filepath.Join(filepath.Dir(f.cudartPath), "no-libnvidia-ml.so.1")}
	return c
}

// setDelay makes each kernel take base + perSample×batch nanoseconds.
func (f *fake) setDelay(base, perSample int64) {
	f.tr.Call("fake_trt_set_delay", uintptr(base), uintptr(perSample))
}

// setVersion sets the CUDA version the fake reports (e.g. 13000), which
// selects cudaMemcpyBatchAsync's signature. Call it before New.
func (f *fake) setVersion(v int) { f.Call("fakecuda_set_version", uintptr(v)) }

// busyQueries counts cudaStreamQuery calls that found work queued.
func (f *fake) busyQueries() int64 { return int64(f.Call("fakecuda_busy_queries")) }

// asyncCopies counts the cudaMemcpyAsync calls of kind queued so far.
func (f *fake) asyncCopies(kind copyKind) int64 {
	return int64(f.Call("fakecuda_async_copies", uintptr(kind)))
}

// batchCopies counts successful cudaMemcpyBatchAsync calls.
func (f *fake) batchCopies() int64 { return int64(f.Call("fakecuda_batch_copies")) }

func (f *fake) failEnqueue(n int) { f.tr.Call("fake_trt_fail_enqueue", uintptr(n)) }
func (f *fake) failDevice(d int)  { f.Call("fakecuda_fail_device", uintptr(d)) }

// batches returns the batch sizes of every enqueue so far, oldest first.
func (f *fake) batches() []int {
	buf := make([]int32, 4096)
	n := int(f.tr.Call("fake_trt_batches", uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))))
	out := make([]int, n)
	for i := range out {
		out[i] = int(buf[i])
	}
	return out
}

// live reports the fake's outstanding objects: allocations, streams,
// events, runtimes, engines, contexts, CUDA graphs (captured and
// instantiated) and driver modules.
type liveObjects struct {
	allocs, streams, events, runtimes, engines, contexts int32
	graphs, graphExecs, modules                          int32
}

func (f *fake) live() liveObjects {
	var l liveObjects
	f.Call("fakecuda_live", uintptr(unsafe.Pointer(&l.allocs)), uintptr(unsafe.Pointer(&l.streams)),
		uintptr(unsafe.Pointer(&l.events)))
	f.tr.Call("fake_trt_live", uintptr(unsafe.Pointer(&l.runtimes)), uintptr(unsafe.Pointer(&l.engines)),
		uintptr(unsafe.Pointer(&l.contexts)))
	var launches, kernels int64
	f.Call("fakecuda_graphs", uintptr(unsafe.Pointer(&l.graphs)), uintptr(unsafe.Pointer(&l.graphExecs)),
		uintptr(unsafe.Pointer(&launches)), uintptr(unsafe.Pointer(&kernels)))
	l.modules = int32(f.Call("fakecuda_modules"))
	return l
}

// launches returns how many CUDA graph launches and gather kernel launches
// were queued so far.
func (f *fake) launches() (graphs, kernels int64) {
	var g, x int32
	f.Call("fakecuda_graphs", uintptr(unsafe.Pointer(&g)), uintptr(unsafe.Pointer(&x)),
		uintptr(unsafe.Pointer(&graphs)), uintptr(unsafe.Pointer(&kernels)))
	return graphs, kernels
}

// streamStat is one fake stream's device, busy time and operation count.
type streamStat struct {
	dev    int
	busyNs uint64
	ops    uint64
}

func (f *fake) streams() []streamStat {
	n := int(f.Call("fakecuda_stream_count"))
	out := make([]streamStat, n)
	for i := range out {
		var dev int32
		f.Call("fakecuda_stream_stats", uintptr(i), uintptr(unsafe.Pointer(&dev)),
			uintptr(unsafe.Pointer(&out[i].busyNs)), uintptr(unsafe.Pointer(&out[i].ops)))
		out[i].dev = int(dev)
	}
	return out
}

// plan returns a fake engine description.
func fakePlan(lines ...string) []byte {
	s := "faketrt 1\n"
	for _, l := range lines {
		s += l + "\n"
	}
	return []byte(s)
}

// newBackend creates and loads a backend on f with options.
func newBackend(t testing.TB, f *fake, plan []byte, opts map[string]string) *Backend {
	t.Helper()
	b, err := New(f.config())
	require.NoError(t, err)
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: plan, Options: opts}))
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// modelOf returns b's loaded model.
func modelOf(t testing.TB, b *Backend) *model {
	t.Helper()
	m, err := b.Model()
	require.NoError(t, err)
	return m
}
