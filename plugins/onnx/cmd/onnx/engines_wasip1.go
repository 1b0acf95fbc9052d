//go:build wasip1

package main

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/backend"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/wasinn"
)

// engines are the Go engine (SIMD128 kernels, in the sandbox) and
// wasinn (the host's engine through WASI-NN): a sandboxed guest cannot
// load native libraries itself.
func engines() []engine.Engine { return []engine.Engine{goengine.New(), wasinn.New()} }

// setup makes wasinn the default, the fastest path that keeps the guest
// sandboxed, and the go engine its fallback when the host has no wasi-nn
// engine (an info line, not a warning: that host is common).
func setup() backend.Config {
	return backend.Config{Engine: wasinn.Name, Fallback: goengine.Name, QuietFallback: true}
}
