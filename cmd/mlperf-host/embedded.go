package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// embeddedFS holds the plugins built into the binary: embedded/onnx.wasm
// when `make build` put it there before `go build`. The directory always
// holds README.md, so that the binary builds without it.
//
//go:embed embedded
var embeddedFS embed.FS

// embeddedPlugin is the name of the plugin the binary may embed.
const embeddedPlugin = "onnx"

// embeddedModule returns the embedded plugin's WASM module, or an error
// saying how to build a binary that has it.
func embeddedModule() ([]byte, error) {
	b, err := fs.ReadFile(embeddedFS, "embedded/"+embeddedPlugin+".wasm")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, exitcode.New(exitcode.PluginNotFound,
			fmt.Errorf("%w: %q is neither installed nor embedded: this mlperf-host was built without the embedded onnx plugin",
				host.ErrPluginNotFound, embeddedPlugin),
			"build with `make build` (it embeds the onnx plugin), or install the plugin in a plugin directory")
	}
	return b, err
}

// embeddedStatus describes the embedded plugin for `version`.
func embeddedStatus() string {
	b, err := embeddedModule()
	if err != nil {
		return "none (built without it; `make build` embeds it)"
	}
	return fmt.Sprintf("%s (WASM, %.1f MB)", embeddedPlugin, float64(len(b))/1e6)
}
