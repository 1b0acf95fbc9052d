package aic

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// fakeObject is the fake libQAic compiled once per test binary; each test
// links a private copy so that tests run in parallel with private state.
var fakeObject struct {
	once sync.Once
	dir  string
	err  error
}

var fakeCopies atomic.Int64

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeObject.dir != "" {
		os.RemoveAll(fakeObject.dir)
	}
	os.Exit(code)
}

// fakeQAic is one private instance of the fake runtime.
type fakeQAic struct {
	path string
	h    uintptr
}

// newFakeQAic links a copy of the fake with devices devices of nsp cores.
// It skips the test when gcc is missing.
func newFakeQAic(t testing.TB, devices, nsp int) *fakeQAic {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the fake AIC runtime is compiled by the test")
	}
	fakeObject.once.Do(func() {
		dir, err := os.MkdirTemp("", "qaic-fake-")
		if err != nil {
			fakeObject.err = err
			return
		}
		fakeObject.dir = dir
		out, err := exec.Command("gcc", "-O2", "-fPIC", "-Wall", "-Werror", "-c",
			filepath.Join("testdata", "fake", "fakeqaic.c"), "-o", filepath.Join(dir, "fakeqaic.o")).CombinedOutput()
		if err != nil {
			fakeObject.err = fmt.Errorf("compile fakeqaic.c: %v\n%s", err, out)
		}
	})
	require.NoError(t, fakeObject.err)
	lib := filepath.Join(t.TempDir(), fmt.Sprintf("libQAic%d.so", fakeCopies.Add(1)))
	out, err := exec.Command("gcc", "-shared", "-o", lib, filepath.Join(fakeObject.dir, "fakeqaic.o"),
		"-lpthread").CombinedOutput()
	require.NoError(t, err, "link: %s", out)
	f := &fakeQAic{path: lib}
	f.h, err = purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	f.call("fakeqaic_configure", uintptr(devices), uintptr(nsp))
	// Registered before any backend's Close, so it runs after it.
	t.Cleanup(func() {
		n, first := f.violations()
		assert.Zero(t, n, "the fake AIC runtime refused %d calls that tore down work still submitted; the first: %s",
			n, first)
	})
	return f
}

// violations returns how many calls the fake refused because submitted
// work still used what they would tear down, and the first one's message.
func (f *fakeQAic) violations() (int, string) {
	buf := make([]byte, 512)
	n := int(int32(f.call("fakeqaic_violations", uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))))
	for i, c := range buf {
		if c == 0 {
			buf = buf[:i]
			break
		}
	}
	return n, string(buf)
}

// call calls a fake function; uintptrescapes keeps pointer arguments on the
// heap, as purego.SyscallN does.
//
//go:uintptrescapes
func (f *fakeQAic) call(name string, args ...uintptr) uintptr {
	sym, err := purego.Dlsym(f.h, name)
	if err != nil {
		panic(fmt.Sprintf("fake symbol %s: %v", name, err))
	}
	r, _, _ := purego.SyscallN(sym, args...)
	return r
}

func (f *fakeQAic) config() Config {
	c := DefaultConfig()
	c.LibraryPaths = []string{f.path}
	c.ProbeDevices = 8
	return c
}

func (f *fakeQAic) setDelay(base, perRow int64) {
	f.call("fakeqaic_set_delay", uintptr(base), uintptr(perRow))
}
func (f *fakeQAic) setDeviceDelay(dev int, ns int64) {
	f.call("fakeqaic_set_device_delay", uintptr(dev), uintptr(ns))
}

// waiting returns how many threads wait for an exec object now.
func (f *fakeQAic) waiting() int { return int(int32(f.call("fakeqaic_waiting"))) }

func (f *fakeQAic) failEnqueue(n int) { f.call("fakeqaic_fail_enqueue", uintptr(n)) }
func (f *fakeQAic) failDevice(d int)  { f.call("fakeqaic_fail_device", uintptr(d)) }

func (f *fakeQAic) gate(closed bool) {
	v := uintptr(0)
	if closed {
		v = 1
	}
	f.call("fakeqaic_gate", v)
}

// running returns the runs at the gate or running now, the peak and the
// total so far.
func (f *fakeQAic) running() (now, peak int, runs int64) {
	var r, p int32
	f.call("fakeqaic_running", uintptr(unsafe.Pointer(&r)), uintptr(unsafe.Pointer(&p)), uintptr(unsafe.Pointer(&runs)))
	return int(r), int(p), runs
}

// liveObjects counts the fake's outstanding objects and NSPs in use.
type liveObjects struct{ contexts, queues, qpcs, programs, execs, nspUsed int32 }

func (f *fakeQAic) live() liveObjects {
	var l liveObjects
	f.call("fakeqaic_live", uintptr(unsafe.Pointer(&l.contexts)), uintptr(unsafe.Pointer(&l.queues)),
		uintptr(unsafe.Pointer(&l.qpcs)), uintptr(unsafe.Pointer(&l.programs)), uintptr(unsafe.Pointer(&l.execs)),
		uintptr(unsafe.Pointer(&l.nspUsed)))
	return l
}

// programStat is one activation's device, busy time and runs.
type programStat struct {
	dev    int
	busyNs int64
	runs   int64
}

func (f *fakeQAic) programs() []programStat {
	n := int(f.call("fakeqaic_program_count"))
	out := make([]programStat, n)
	for i := range out {
		var dev int32
		f.call("fakeqaic_program_stats", uintptr(i), uintptr(unsafe.Pointer(&dev)),
			uintptr(unsafe.Pointer(&out[i].busyNs)), uintptr(unsafe.Pointer(&out[i].runs)))
		out[i].dev = int(dev)
	}
	return out
}

func (f *fakeQAic) deviceBusy(dev int) int64 {
	return int64(f.call("fakeqaic_device_busy", uintptr(dev)))
}

// qpc returns a fake QPC: batch, NSP cores, then "input name bytes" and
// "output name bytes" lines with the bytes of one row.
func qpc(batch, cores int, buffers ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "fakeqpc 1\nbatch %d\ncores %d\n", batch, cores)
	for _, l := range buffers {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// newLoaded creates and loads a backend on f.
func newLoaded(t testing.TB, f *fakeQAic, program []byte, opts map[string]string) *Backend {
	t.Helper()
	b, err := New(f.config())
	require.NoError(t, err)
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: program, Options: opts}))
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// completions is an sdk.Completer that records every report.
type completions struct {
	mu     sync.Mutex
	out    map[uint64][]byte
	failed map[uint64]error
	order  []uint64
}

var _ sdk.Completer = (*completions)(nil)

func newCompletions() *completions {
	return &completions{out: map[uint64][]byte{}, failed: map[uint64]error{}}
}

func (c *completions) Complete(id uint64, data []byte, _ int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out[id] = append([]byte(nil), data...)
	c.order = append(c.order, id)
}

func (c *completions) FirstToken(uint64, []byte) {}

func (c *completions) Fail(id uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed[id] = err
	c.order = append(c.order, id)
}

// results returns copies of what was reported.
func (c *completions) results() (map[uint64][]byte, map[uint64]error, []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[uint64][]byte, len(c.out))
	for k, v := range c.out {
		out[k] = v
	}
	failed := make(map[uint64]error, len(c.failed))
	for k, v := range c.failed {
		failed[k] = v
	}
	return out, failed, append([]uint64(nil), c.order...)
}

// sampleData returns distinct bytes for sample index i.
func sampleData(i uint64, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(int(i)*17 + j*5 + 3)
	}
	return b
}

// samplesOf builds a query of indices 0..n-1 with IDs 500+index.
func samplesOf(n, size int, withData, want bool) sdk.Query {
	var q sdk.Query
	for i := range uint64(n) {
		s := sdk.Sample{ID: 500 + i, Index: i, WantOutput: want}
		if withData {
			s.Data = sampleData(i, size)
		}
		q.Samples = append(q.Samples, s)
	}
	return q
}

// expectedOutput mirrors the fake program: output k is input k mod
// #inputs, repeated or cut to the output's row size.
func expectedOutput(sample []byte, ins, outs []int) []byte {
	var rows [][]byte
	off := 0
	for _, n := range ins {
		rows = append(rows, sample[off:off+n])
		off += n
	}
	var out []byte
	for k, n := range outs {
		src := rows[k%len(rows)]
		for n > 0 {
			c := min(n, len(src))
			out = append(out, src[:c]...)
			n -= c
		}
	}
	return out
}
