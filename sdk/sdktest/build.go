//go:build !wasip1

package sdktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Target is what [GoBuild] builds for.
type Target int

// The targets.
const (
	// Native is a binary for this machine with cgo off, as a portable
	// subprocess plugin (and mlperf-host itself) builds.
	Native Target = iota
	// WASM is a WASM reactor module: GOOS=wasip1 GOARCH=wasm,
	// -buildmode=c-shared.
	WASM
)

// coverPkg is what a plugin built for a coverage run counts: the whole
// module, so that the SDK's subprocess side shows up.
const coverPkg = "github.com/mlperf-host/mlperf-host/..."

// GoBuild runs `go build` of the main package pkg (a path or an import
// path) into out for target. It is the one way this module's tests build
// the programs they run: plugins, WASM guests, mlperf-host.
//
// When GOCOVERDIR is set in the environment (`make cover` sets it; so
// does `go test -cover`), a native binary is built with -cover over the
// whole module: run as a child of the test, it inherits GOCOVERDIR and
// writes its counters there when it exits, so the code that runs only in
// plugin processes (sdk.Serve, the gRPC server, the rings) is counted too.
// WASM modules are not instrumented.
func GoBuild(out, pkg string, target Target) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the go tool is not on PATH: %w", err)
	}
	args := []string{"build", "-o", out}
	env := os.Environ()
	switch target {
	case WASM:
		args = append(args, "-buildmode=c-shared")
		env = append(env, "GOOS=wasip1", "GOARCH=wasm")
	default:
		env = append(env, "CGO_ENABLED=0")
		if os.Getenv("GOCOVERDIR") != "" {
			args = append(args, "-cover", "-coverpkg="+coverPkg)
		}
	}
	cmd := exec.Command(goTool, append(args, pkg)...)
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// BuildPlugin builds the main package in dir (e.g. ".") into a temporary
// binary called name, with cgo off as a portable plugin builds ([GoBuild],
// [Native]), and returns its path. It skips the test when the go tool is
// not on PATH.
func BuildPlugin(t testing.TB, dir, name string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go tool is not on PATH: the test builds the plugin binary")
	}
	bin := filepath.Join(t.TempDir(), name)
	if err := GoBuild(bin, dir, Native); err != nil {
		t.Fatal(err)
	}
	return bin
}
