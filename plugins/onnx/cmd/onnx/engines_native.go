//go:build linux || darwin

package main

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/backend"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
)

// engines is the Go engine (the default) and ONNX Runtime, loaded at the
// first Load that asks for it.
func engines() []engine.Engine { return []engine.Engine{goengine.New(), ort.New()} }

// setup is the onnx plugin's default configuration: the go engine.
func setup() backend.Config { return backend.Config{} }
