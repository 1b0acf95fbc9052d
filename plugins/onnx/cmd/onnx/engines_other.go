//go:build !wasip1 && !linux && !darwin

package main

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/backend"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
)

// engines is the Go engine: the ONNX Runtime engine binds the library
// on Linux and macOS only.
func engines() []engine.Engine { return []engine.Engine{goengine.New()} }

// setup is the onnx plugin's default configuration: the go engine.
func setup() backend.Config { return backend.Config{} }
