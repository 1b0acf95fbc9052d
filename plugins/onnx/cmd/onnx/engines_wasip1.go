//go:build wasip1

package main

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
)

// engines is the Go engine alone: a sandboxed guest cannot load native
// libraries.
func engines() []engine.Engine { return []engine.Engine{goengine.New()} }
