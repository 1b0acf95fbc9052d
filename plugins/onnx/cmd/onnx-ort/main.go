//go:build linux || darwin

package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/backend"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// name is the plugin's name: its manifest's, its Info's and the prefix of
// its options (--set onnx-ort.threads=2).
const name = "onnx-ort"

// hint is how a user of this plugin gets ONNX Runtime.
const hint = "run `make ort`, then `make build` to install ONNX Runtime " + ort.Version + " beside the plugin (bin/plugins/" + name + "/" +
	ort.DefaultLibrary + "), or pass --set " + name + "." + ort.OptLibrary + "=PATH"

// description starts Info's description; the option schema
// (`mlperf-host plugins describe onnx-ort`) lists the options.
const description = "ONNX models on CPU with ONNX Runtime"

func main() {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	b, err := newBackend(filepath.Dir(exe))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	sdk.Serve(b)
}

// newBackend returns the backend with ONNX Runtime as the default engine
// and the go engine as its fallback. The library is the one in dir (the
// plugin's directory) when there is one, else the loader's.
func newBackend(dir string) (*backend.Backend, error) {
	cfg := ort.Config{Hint: hint}
	if lib := filepath.Join(dir, ort.DefaultLibrary); fileExists(lib) {
		cfg.Library = lib
	}
	e, err := ort.NewWithConfig(cfg)
	if err != nil {
		return nil, err
	}
	return backend.NewWithConfig(backend.Config{Name: name, Description: description, Engine: "ort", Fallback: "go"},
		goengine.New(), e)
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}
