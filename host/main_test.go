package host

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// scratch is a directory for the whole test binary: the Go guest built
// once, and a shared WASM compilation cache.
var scratch string

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakePluginEnv); mode != "" {
		serveFakePlugin(mode)
	}
	dir, err := os.MkdirTemp("", "host-test-")
	if err != nil {
		panic(err)
	}
	scratch = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

var (
	goGuest   = sync.OnceValues(func() ([]byte, error) { return buildGuest("goguest", "./testdata/goguest") })
	echoGuest = sync.OnceValues(func() ([]byte, error) { return buildGuest("echo", "../examples/echo/cmd/echo") })
)

// buildGuest builds the Go package pkg as a WASM reactor.
func buildGuest(name, pkg string) ([]byte, error) {
	out := filepath.Join(scratch, name+".wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, &exec.ExitError{Stderr: b}
	}
	return os.ReadFile(out)
}

// goGuestModule builds testdata/goguest for WASM (once per test binary).
func goGuestModule(t testing.TB) []byte {
	t.Helper()
	b, err := goGuest()
	require.NoError(t, err, "build the Go guest")
	return b
}

// wasmCache is the compilation cache shared by the tests.
func wasmCache() string { return filepath.Join(scratch, "wazero-cache") }
