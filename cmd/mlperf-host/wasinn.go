package main

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/nnort"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/ortnn"
)

// wasiNNHint is how a user gets ONNX Runtime for the wasi-nn import.
const wasiNNHint = "run `make ort`, then `make build` to install ONNX Runtime " + ortnn.Version +
	" beside the onnx-ort plugin (bin/plugins/onnx-ort/), or pass --set " + config.KeyHostWasiNNLibrary + "=PATH"

// wasiNN is the engine behind WASM plugins' wasi-nn import: ONNX Runtime,
// unless host.wasi_nn is off. Its library loads with the first model a
// guest gives it; a guest whose load fails is told why in the log.
func (a *app) wasiNN(c *config.Config) host.NN {
	if c.Host.WasiNN == "off" {
		return nil
	}
	lib := c.Host.WasiNNLibrary
	if lib == "" {
		lib = nnort.FindLibrary(a.executable)
	}
	nn, err := nnort.New(nnort.Config{Library: lib, Threads: c.Host.WasiNNThreads, Hint: wasiNNHint})
	if err != nil {
		fmt.Fprintf(a.stderr, "warning: %v: WASM plugins run without wasi-nn\n", err)
		return nil
	}
	return nn
}
