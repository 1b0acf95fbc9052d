package aic

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// fakeObjects is the fake libQAic, compiled once per test binary.
var fakeObjects = acceltest.NewObjects("the fake AIC runtime", nil, filepath.Join("testdata", "fake", "fakeqaic.c"))

func TestMain(m *testing.M) {
	code := m.Run()
	fakeObjects.Remove()
	os.Exit(code)
}

// fakeQAic is one private instance of the fake runtime.
type fakeQAic struct {
	*acceltest.Lib
}

// newFakeQAic links a copy of the fake with devices devices of nsp cores.
// It skips the test when gcc is missing.
func newFakeQAic(t testing.TB, devices, nsp int) *fakeQAic {
	t.Helper()
	fakeObjects.Dir(t)
	lib := filepath.Join(t.TempDir(), fmt.Sprintf("libQAic%d.so", acceltest.NextCopy()))
	acceltest.Link(t, lib, fakeObjects.Object("fakeqaic.c"))
	f := &fakeQAic{Lib: acceltest.Open(t, lib)}
	f.Call("fakeqaic_configure", uintptr(devices), uintptr(nsp))
	f.CheckViolations(t, "the fake AIC runtime")
	return f
}

func (f *fakeQAic) config() Config {
	c := DefaultConfig()
	c.LibraryPaths = []string{f.Path}
	c.ProbeDevices = 8
	return c
}

func (f *fakeQAic) setDelay(base, perRow int64) {
	f.Call("fakeqaic_set_delay", uintptr(base), uintptr(perRow))
}
func (f *fakeQAic) setDeviceDelay(dev int, ns int64) {
	f.Call("fakeqaic_set_device_delay", uintptr(dev), uintptr(ns))
}

// waiting returns how many threads wait for an exec object now.
func (f *fakeQAic) waiting() int { return int(int32(f.Call("fakeqaic_waiting"))) }

func (f *fakeQAic) failEnqueue(n int) { f.Call("fakeqaic_fail_enqueue", uintptr(n)) }
func (f *fakeQAic) failDevice(d int)  { f.Call("fakeqaic_fail_device", uintptr(d)) }

// runs returns how many exec objects ran to completion.
func (f *fakeQAic) runs() int64 { return int64(f.Call("fakeqaic_runs")) }

// liveObjects counts the fake's outstanding objects and NSPs in use.
type liveObjects struct{ contexts, queues, qpcs, programs, execs, nspUsed int32 }

func (f *fakeQAic) live() liveObjects {
	var l liveObjects
	f.Call("fakeqaic_live", uintptr(unsafe.Pointer(&l.contexts)), uintptr(unsafe.Pointer(&l.queues)),
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
	n := int(f.Call("fakeqaic_program_count"))
	out := make([]programStat, n)
	for i := range out {
		var dev int32
		f.Call("fakeqaic_program_stats", uintptr(i), uintptr(unsafe.Pointer(&dev)),
			uintptr(unsafe.Pointer(&out[i].busyNs)), uintptr(unsafe.Pointer(&out[i].runs)))
		out[i].dev = int(dev)
	}
	return out
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

// samplesOf builds a query of indices 0..n-1 (see acceltest.Query).
func samplesOf(n, size int, withData, want bool) sdk.Query {
	return acceltest.Query(acceltest.Seq(n), size, withData, want)
}

// programOf returns b's loaded program.
func programOf(t testing.TB, b *Backend) *program {
	t.Helper()
	p, err := b.Model()
	require.NoError(t, err)
	return p
}
