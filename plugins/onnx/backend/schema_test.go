//go:build linux || darwin

package backend

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// TestOptionSchema: the schema declares the backend's options and each
// engine's, every default is a value of its type, and the engine option
// has none (a default would count as naming the engine and stop the
// fallback).
func TestOptionSchema(t *testing.T) {
	t.Parallel()
	b, err := NewWithConfig(Config{Engine: "ort", Fallback: "go"}, goengine.New(), ort.New())
	require.NoError(t, err)
	byName := map[string]sdk.Option{}
	for _, o := range b.Info().Options {
		require.NotContains(t, byName, o.Name, "declared twice")
		byName[o.Name] = o
		if o.Default != "" {
			assert.NoError(t, abi.CheckOptionValue(o.Type, o.Allowed, o.Default), o.Name)
		}
		assert.NotEmpty(t, o.Doc, o.Name)
	}
	for _, name := range []string{OptEngine, OptThreads, OptBatch, OptInstances, OptResponse, OptClassOutput, OptClassOffset,
		goengine.OptKernel, goengine.OptFuse, goengine.OptMaxArenaMB, ort.OptInterOpThreads, ort.OptLibrary, ort.OptOptimization} {
		assert.Contains(t, byName, name)
	}
	assert.Equal(t, []string{"go", "ort"}, byName[OptEngine].Allowed)
	assert.Empty(t, byName[OptEngine].Default)
	assert.Contains(t, byName[OptEngine].Doc, "unset: ort, or go when ort is unavailable")
	assert.Contains(t, byName[OptThreads].Doc, "intra-op")

	wasm := New(goengine.New()).Info().Options
	assert.Len(t, wasm, len(byName)-3, "without the ort engine, without its options")
}
