package acceltest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// IncludeDir is the directory of fakedevice.h, which every fake runtime
// includes.
func IncludeDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "cfake"
	}
	return filepath.Join(filepath.Dir(file), "cfake")
}

// RequireGCC skips t when gcc is missing; what names the fakes it would
// have compiled.
func RequireGCC(t testing.TB, what string) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skipf("gcc not found: %s compiled by the test", what)
	}
}

// Objects compiles C sources to position-independent objects once per
// test binary. Remove its directory from TestMain.
type Objects struct {
	what   string
	cflags []string
	srcs   []string

	once sync.Once
	dir  string
	err  error
}

// NewObjects describes the objects of srcs, compiled with cflags and the
// include directory of fakedevice.h; what names them in skip messages.
func NewObjects(what string, cflags []string, srcs ...string) *Objects {
	return &Objects{what: what, cflags: cflags, srcs: srcs}
}

// Dir compiles the sources the first time and returns the directory that
// holds NAME.o for each source NAME.c. It skips t when gcc is missing.
func (o *Objects) Dir(t testing.TB) string {
	t.Helper()
	RequireGCC(t, o.what+" are")
	o.once.Do(func() {
		dir, err := os.MkdirTemp("", "accel-fake-")
		if err != nil {
			o.err = err
			return
		}
		o.dir = dir
		for _, src := range o.srcs {
			obj := filepath.Join(dir, object(src))
			args := append([]string{"-O2", "-fPIC", "-Wall", "-Werror", "-I", IncludeDir()}, o.cflags...)
			out, err := exec.Command("gcc", append(args, "-c", src, "-o", obj)...).CombinedOutput()
			if err != nil {
				o.err = fmt.Errorf("compile %s: %v\n%s", src, err, out)
				return
			}
		}
	})
	require.NoError(t, o.err)
	return o.dir
}

// Object is the path of src's object; call Dir first.
func (o *Objects) Object(src string) string { return filepath.Join(o.dir, object(src)) }

func object(src string) string {
	base := filepath.Base(src)
	return base[:len(base)-len(filepath.Ext(base))] + ".o"
}

// Remove deletes the compiled objects.
func (o *Objects) Remove() {
	if o.dir != "" {
		_ = os.RemoveAll(o.dir)
	}
}

// copies numbers the private copies of fakes: each gets its own soname,
// so that every test loads its own instance with its own state.
var copies atomic.Int64

// NextCopy returns a number no other copy of this test binary has.
func NextCopy() int64 { return copies.Add(1) }

// Link runs gcc -shared with args and -lpthread, failing t on error.
func Link(t testing.TB, out string, args ...string) {
	t.Helper()
	args = append(append([]string{"-shared", "-o", out}, args...), "-lpthread")
	b, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "link %s: %s", out, b)
}

// BuildShared compiles and links C sources into the shared library out in
// one step, with the include directory of fakedevice.h: for tests that
// build a fake once.
func BuildShared(t testing.TB, out string, args ...string) {
	t.Helper()
	Link(t, out, append([]string{"-fPIC", "-O2", "-Wall", "-I", IncludeDir()}, args...)...)
}

// Lib is one loaded copy of a fake runtime.
type Lib struct {
	// Path is the shared library loaded.
	Path string
	lib  *native.Library
}

// Open dlopens a fake, keeping its symbols local to it.
func Open(t testing.TB, path string) *Lib {
	t.Helper()
	lib, err := native.Open([]string{path})
	require.NoError(t, err)
	return &Lib{Path: path, lib: lib}
}

// Symbol returns the address of a fake's C function.
func (l *Lib) Symbol(name string) uintptr {
	sym, err := l.lib.Symbol(name)
	if err != nil {
		panic(fmt.Sprintf("fake: %v", err))
	}
	return sym
}

// Call calls a fake's C function. Like purego.SyscallN it is marked
// uintptrescapes: pointers converted to uintptr in its arguments escape
// to the heap, so a stack move cannot leave C writing to a stale address.
//
//go:uintptrescapes
func (l *Lib) Call(name string, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(l.Symbol(name), args...)
	return r
}

// Violations returns how many calls the fake refused because work still
// queued or submitted used what they touched, and the first one's
// message.
func (l *Lib) Violations() (int, string) {
	buf := make([]byte, 512)
	n := int(int32(l.Call("fake_violations", uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))))
	return n, cText(buf)
}

// ForgetViolations clears the fake's record of refused calls, for a test
// that made it refuse one on purpose and checked the refusal.
func (l *Lib) ForgetViolations() { l.Call("fake_forget_violations") }

// CheckViolations registers a cleanup that fails t when the fake refused
// any call. Register it before the backend's Close cleanup, so that it
// runs after it. what names the fake.
func (l *Lib) CheckViolations(t testing.TB, what string) {
	t.Cleanup(func() {
		n, first := l.Violations()
		assert.Zero(t, n, "%s refused %d calls that the hardware would fault on; the first: %s", what, n, first)
	})
}

// Gate closes or opens the fake's kernel gate: while it is closed,
// kernels wait at their start.
func (l *Lib) Gate(closed bool) {
	v := uintptr(0)
	if closed {
		v = 1
	}
	l.Call("fake_gate", v)
}

// Kernels returns the kernels waiting at the gate or running now, and the
// most there ever were at once.
func (l *Lib) Kernels() (running, peak int) {
	var r, p int32
	l.Call("fake_kernels", uintptr(unsafe.Pointer(&r)), uintptr(unsafe.Pointer(&p)))
	return int(r), int(p)
}

// DeviceBusy returns the nanoseconds at least one kernel ran on dev.
func (l *Lib) DeviceBusy(dev int) int64 { return int64(l.Call("fake_device_busy", uintptr(dev))) }

// cText returns buf up to its first NUL.
func cText(buf []byte) string {
	for i, c := range buf {
		if c == 0 {
			return string(buf[:i])
		}
	}
	return string(buf)
}
