package host

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host/manifest"
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
	// echoProcess is the SDK's echo example as a subprocess plugin.
	echoProcess = sync.OnceValues(func() (string, error) {
		out := filepath.Join(scratch, "echo")
		return out, build(out, "../examples/echo/cmd/echo", []string{"CGO_ENABLED=0"})
	})
)

// buildGuest builds the Go package pkg as a WASM reactor.
func buildGuest(name, pkg string) ([]byte, error) {
	out := filepath.Join(scratch, name+".wasm")
	if err := build(out, pkg, []string{"GOOS=wasip1", "GOARCH=wasm"}, "-buildmode=c-shared"); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

// build runs go build with flags of pkg into out, with env added to the
// environment.
func build(out, pkg string, env []string, flags ...string) error {
	cmd := exec.Command("go", append(append([]string{"build", "-o", out}, flags...), pkg)...)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return &exec.ExitError{Stderr: b}
	}
	return nil
}

// echoPlugin is echoProcess as a Plugin to open.
func echoPlugin(t *testing.T) Plugin {
	t.Helper()
	bin, err := echoProcess()
	require.NoError(t, err, "build the echo plugin")
	return Plugin{Name: "echo", Kind: manifest.KindProcess, Entry: bin}
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
