package trt

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// fakeObjects compiles the fake CUDA runtime and shim once per test binary.
var fakeObjects struct {
	once sync.Once
	dir  string
	err  error
}

// fakeSeq numbers the per-test copies: each gets its own soname, so every
// test loads private instances with private state and tests run in parallel.
var fakeSeq atomic.Int64

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeObjects.dir != "" {
		os.RemoveAll(fakeObjects.dir)
	}
	os.Exit(code)
}

func compileFakes() (string, error) {
	fakeObjects.once.Do(func() {
		if _, err := exec.LookPath("gcc"); err != nil {
			fakeObjects.err = err
			return
		}
		dir, err := os.MkdirTemp("", "trt-fake-")
		if err != nil {
			fakeObjects.err = err
			return
		}
		fakeObjects.dir = dir
		for _, src := range []string{"fakecudart", "faketrt"} {
			out, err := exec.Command("gcc", "-O2", "-fPIC", "-Wall", "-Werror", "-I", "../shim",
				"-c", filepath.Join("testdata", "fake", src+".c"), "-o", filepath.Join(dir, src+".o")).CombinedOutput()
			if err != nil {
				fakeObjects.err = fmt.Errorf("compile %s: %v\n%s", src, err, out)
				return
			}
		}
	})
	return fakeObjects.dir, fakeObjects.err
}

// fake is one private instance of the fake CUDA runtime and TensorRT shim.
type fake struct {
	t          *testing.T
	cudartPath string
	shimPath   string
	dir        string
	cu, tr     uintptr
}

// newFake links a private copy of the fakes with devices devices of mem
// bytes each. It skips the test when gcc is missing.
func newFake(t testing.TB, devices int, mem int64) *fake {
	t.Helper()
	objs, err := compileFakes()
	if err != nil {
		if _, lookErr := exec.LookPath("gcc"); lookErr != nil {
			t.Skip("gcc not found: the fake CUDA runtime and TensorRT shim are compiled by the test")
		}
		require.NoError(t, err)
	}
	dir := t.TempDir()
	n := fakeSeq.Add(1)
	cudart := filepath.Join(dir, fmt.Sprintf("libfakecudart%d.so", n))
	shimLib := filepath.Join(dir, fmt.Sprintf("libfaketrt%d.so", n))
	link := func(args ...string) {
		out, err := exec.Command("gcc", args...).CombinedOutput()
		require.NoError(t, err, "link: %s", out)
	}
	link("-shared", "-o", cudart, filepath.Join(objs, "fakecudart.o"),
		"-Wl,-soname,"+filepath.Base(cudart), "-lpthread")
	link("-shared", "-o", shimLib, filepath.Join(objs, "faketrt.o"), cudart,
		"-Xlinker", "-rpath", "-Xlinker", dir, "-lpthread")
	f := &fake{cudartPath: cudart, shimPath: shimLib, dir: dir}
	// Load order matters as in production: libcudart first, then the shim,
	// whose dependency on it resolves to the copy already loaded.
	f.cu, err = purego.Dlopen(cudart, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	f.tr, err = purego.Dlopen(shimLib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	f.call(f.cu, "fakecuda_configure", uintptr(devices), uintptr(mem))
	// Registered before any backend's Close, so it runs after it.
	t.Cleanup(func() {
		n, first := f.violations()
		assert.Zero(t, n, "the fake CUDA runtime refused %d calls that a GPU would fault on; the first: %s", n, first)
	})
	return f
}

// violations returns how many calls the fake refused because queued
// stream work still used a resource (a use after free on a GPU), and the
// first refusal's message.
func (f *fake) violations() (int, string) {
	buf := make([]byte, 512)
	n := int(int32(f.call(f.cu, "fakecuda_violations", uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))))
	return n, errText(buf)
}

// call calls a fake function. Like purego.SyscallN it is marked
// uintptrescapes: pointers converted to uintptr in its arguments escape to
// the heap, so a stack move cannot leave C writing to a stale address.
//
//go:uintptrescapes
func (f *fake) call(lib uintptr, name string, args ...uintptr) uintptr {
	sym, err := purego.Dlsym(lib, name)
	if err != nil {
		panic(fmt.Sprintf("fake symbol %s: %v", name, err))
	}
	r, _, _ := purego.SyscallN(sym, args...)
	return r
}

// config returns a Config that loads this fake.
func (f *fake) config() Config {
	c := DefaultConfig()
	c.CudartPaths = []string{f.cudartPath}
	c.ShimPaths = []string{f.shimPath}
	return c
}

// setDelay makes each kernel take base + perSample×batch nanoseconds.
func (f *fake) setDelay(base, perSample int64) {
	f.call(f.tr, "fake_trt_set_delay", uintptr(base), uintptr(perSample))
}

// setVersion sets the CUDA version the fake reports (e.g. 13000), which
// selects cudaMemcpyBatchAsync's signature. Call it before New.
func (f *fake) setVersion(v int) { f.call(f.cu, "fakecuda_set_version", uintptr(v)) }

// busyQueries counts cudaStreamQuery calls that found work queued.
func (f *fake) busyQueries() int64 { return int64(f.call(f.cu, "fakecuda_busy_queries")) }

// batchCopies counts successful cudaMemcpyBatchAsync calls.
func (f *fake) batchCopies() int64 { return int64(f.call(f.cu, "fakecuda_batch_copies")) }

func (f *fake) failEnqueue(n int) { f.call(f.tr, "fake_trt_fail_enqueue", uintptr(n)) }
func (f *fake) failDevice(d int)  { f.call(f.cu, "fakecuda_fail_device", uintptr(d)) }
func (f *fake) gate(closed bool) {
	v := uintptr(0)
	if closed {
		v = 1
	}
	f.call(f.cu, "fakecuda_gate", v)
}

// kernels returns the kernels at the gate or running, and the peak.
func (f *fake) kernels() (running, peak int) {
	var r, p int32
	f.call(f.cu, "fakecuda_kernels", uintptr(unsafe.Pointer(&r)), uintptr(unsafe.Pointer(&p)))
	return int(r), int(p)
}

// deviceBusy returns the nanoseconds at least one kernel ran on dev.
func (f *fake) deviceBusy(dev int) int64 {
	return int64(f.call(f.cu, "fakecuda_device_busy", uintptr(dev)))
}

// batches returns the batch sizes of every enqueue so far, oldest first.
func (f *fake) batches() []int {
	buf := make([]int32, 4096)
	n := int(f.call(f.tr, "fake_trt_batches", uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))))
	out := make([]int, n)
	for i := range out {
		out[i] = int(buf[i])
	}
	return out
}

// live reports the fake's outstanding objects: allocations, streams,
// events, runtimes, engines and contexts.
type liveObjects struct{ allocs, streams, events, runtimes, engines, contexts int32 }

func (f *fake) live() liveObjects {
	var l liveObjects
	f.call(f.cu, "fakecuda_live", uintptr(unsafe.Pointer(&l.allocs)), uintptr(unsafe.Pointer(&l.streams)),
		uintptr(unsafe.Pointer(&l.events)))
	f.call(f.tr, "fake_trt_live", uintptr(unsafe.Pointer(&l.runtimes)), uintptr(unsafe.Pointer(&l.engines)),
		uintptr(unsafe.Pointer(&l.contexts)))
	return l
}

// streamStat is one fake stream's device, busy time and operation count.
type streamStat struct {
	dev    int
	busyNs uint64
	ops    uint64
}

func (f *fake) streams() []streamStat {
	n := int(f.call(f.cu, "fakecuda_stream_count"))
	out := make([]streamStat, n)
	for i := range out {
		var dev int32
		f.call(f.cu, "fakecuda_stream_stats", uintptr(i), uintptr(unsafe.Pointer(&dev)),
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

// recorder is an sdk.Completer that keeps every report.
type recorder struct {
	mu     sync.Mutex
	out    map[uint64][]byte
	failed map[uint64]error
	order  []uint64
	calls  int
}

var _ sdk.Completer = (*recorder)(nil)

func newRecorder() *recorder {
	return &recorder{out: map[uint64][]byte{}, failed: map[uint64]error{}}
}

func (r *recorder) Complete(id uint64, data []byte, _ int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out[id] = append([]byte(nil), data...)
	r.order = append(r.order, id)
	r.calls++
}

func (r *recorder) FirstToken(uint64, []byte) {}

func (r *recorder) Fail(id uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed[id] = err
	r.order = append(r.order, id)
	r.calls++
}

func (r *recorder) snapshot() (out map[uint64][]byte, failed map[uint64]error, order []uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out = map[uint64][]byte{}
	for k, v := range r.out {
		out[k] = v
	}
	failed = map[uint64]error{}
	for k, v := range r.failed {
		failed[k] = v
	}
	return out, failed, append([]uint64(nil), r.order...)
}

// sampleBytes returns distinct bytes for sample index i of size n.
func sampleBytes(i uint64, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(int(i)*31 + j*7 + 1)
	}
	return b
}

// query builds a query of the given sample indices, with data attached
// when withData is set; sample IDs are 1000+index.
func query(indices []uint64, size int, withData, want bool) sdk.Query {
	q := sdk.Query{}
	for _, i := range indices {
		s := sdk.Sample{ID: 1000 + i, Index: i, WantOutput: want}
		if withData {
			s.Data = sampleBytes(i, size)
		}
		q.Samples = append(q.Samples, s)
	}
	return q
}

func seq(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i)
	}
	return out
}
