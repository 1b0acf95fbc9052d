package host

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
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
		return out, sdktest.GoBuild(out, "../examples/echo/cmd/echo", sdktest.Native)
	})
)

// buildGuest builds the Go package pkg as a WASM reactor.
func buildGuest(name, pkg string) ([]byte, error) {
	out := filepath.Join(scratch, name+".wasm")
	if err := sdktest.GoBuild(out, pkg, sdktest.WASM); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
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
