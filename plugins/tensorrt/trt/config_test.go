package trt

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
)

func TestWithOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    map[string]string
		check   func(t *testing.T, c Config)
		wantErr []string
	}{
		{name: "defaults untouched", opts: nil, check: func(t *testing.T, c Config) {
			assert.Equal(t, DefaultConfig(), c)
		}},
		{name: "every option", opts: map[string]string{
			"engine": "/m/resnet.plan", "devices": "1, 3", "streams": "4", "batch_size": "16",
			"start_from_device": "auto", "end_on_device": "true", "device_memory_fraction": "0.5", "timeout": "2s",
			"batch_copies": "true", "cudart": "/a/libcudart.so.12:/b/libcudart.so", "shim": " /s/libmlph_trt.so ",
			"gather": "kernel", "cuda_graphs": "true", "inference_streams": "2", "spin_wait": "true",
			"cuda_driver": "/d/libcuda.so.1", "build": "true", "precision": "int8", "build_batch": "256",
			"build_profiles": "3", "workspace": "1048576", "calibration_cache": "/c/calib.cache",
			"engine_cache": "/e", "stock_plugins": "false", "plugins": "/p/a.so:/p/b.so", "batch_timeout": "2ms",
			"nvml": "/n/libnvidia-ml.so.1", "build_shapes": "ids:1/128/384",
		}, check: func(t *testing.T, c Config) {
			assert.Equal(t, Config{
				Engine: "/m/resnet.plan", Devices: []int{1, 3}, Streams: 4, BatchSize: 16, BatchTimeout: 2 * time.Millisecond,
				Residency: ResidencyAuto, EndOnDevice: true, DeviceMemoryFraction: 0.5, Timeout: 2 * time.Second, BatchCopies: true,
				CudartPaths: []string{"/a/libcudart.so.12", "/b/libcudart.so"},
				ShimPaths:   []string{"/s/libmlph_trt.so"},
				Gather:      GatherKernel, Graphs: true, InferenceStreams: 2, SpinWait: true,
				DriverPaths: []string{"/d/libcuda.so.1"},
				Build:       BuildAlways, Precision: PrecisionINT8, BuildBatch: 256, BuildProfiles: 3,
				WorkspaceBytes: 1 << 20, CalibrationCache: "/c/calib.cache", EngineCache: "/e",
				PluginLibraries: []string{"/p/a.so", "/p/b.so"}, SysfsRoot: "/sys",
				NVMLPaths:   []string{"/n/libnvidia-ml.so.1"},
				BuildShapes: []ShapeRange{{Name: "ids", Min: []int64{1}, Opt: []int64{128}, Max: []int64{384}}},
			}, c)
		}},
		{name: "all devices", opts: map[string]string{"devices": "all"}, check: func(t *testing.T, c Config) {
			assert.Nil(t, c.Devices)
		}},
		// Every problem is reported at once.
		{name: "bad values", opts: map[string]string{
			"streams": "0", "batch_size": "x", "start_from_device": "gpu", "device_memory_fraction": "1.5",
		}, wantErr: []string{"batch_size", "start_from_device", `"gpu"`}},
		{name: "validation after parse", opts: map[string]string{"streams": "0", "device_memory_fraction": "2",
			"gather": "kernel", "cuda_driver": ":"},
			wantErr: []string{"streams must be at least 1", "device_memory_fraction must be in (0, 1]", "no libcuda path"}},
		{name: "out of range", opts: map[string]string{"inference_streams": "-1", "batch_timeout": "-1ms", "spin_wait": "yes"},
			wantErr: []string{"option inference_streams: want a non-negative integer", "option batch_timeout: want a duration",
				"option spin_wait: want true, false, 1 or 0"}},
		{name: "bad gather", opts: map[string]string{"gather": "dma"}, wantErr: []string{"want copies or kernel"}},
		{name: "typo", opts: map[string]string{"stream": "2"}, wantErr: []string{"option stream: unknown option", "streams"}},
		{name: "empty library list", opts: map[string]string{"cudart": " : "}, wantErr: []string{"no libcudart path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := DefaultConfig()
			c, err := base.WithOptions(tt.opts)
			if tt.wantErr != nil {
				require.Error(t, err)
				for _, w := range tt.wantErr {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			tt.check(t, c)
			assert.Equal(t, DefaultConfig(), base, "WithOptions never modifies its receiver")
		})
	}
}

// TestSchema: every option is declared, each default is a value of its
// type that Load reads back as the default config, and batch_timeout has
// none, so that Load chooses it per scenario.
func TestSchema(t *testing.T) {
	t.Parallel()
	schema := DefaultConfig().Schema()
	require.Len(t, schema, len(options))
	defaults := map[string]string{}
	for _, o := range schema {
		assert.NotEmpty(t, o.Doc, o.Name)
		if o.Default == "" {
			continue
		}
		require.NoError(t, abi.CheckOptionValue(o.Type, o.Allowed, o.Default), "%s default %q", o.Name, o.Default)
		defaults[o.Name] = o.Default
	}
	c, err := DefaultConfig().WithOptions(defaults)
	require.NoError(t, err)
	assert.Equal(t, DefaultConfig(), c)
	assert.NotContains(t, defaults, "batch_timeout")
	assert.Equal(t, "2", defaults["streams"])
	assert.Equal(t, "false", defaults["start_from_device"])
	assert.Equal(t, "all", defaults["devices"])
}

// TestShimHeaderMatchesBinding keeps mlph_trt.h, which the real shim and the
// fake implement, and the Go binding in step.
func TestShimHeaderMatchesBinding(t *testing.T) {
	t.Parallel()
	header, err := os.ReadFile(filepath.Join("..", "shim", "mlph_trt.h"))
	require.NoError(t, err)
	// Declarations start a line with their return type; prose mentions do not.
	var declared []string
	for _, m := range regexp.MustCompile(`(?m)^[a-z].*?\b(mlph_trt_[a-z_]+)\(`).FindAllStringSubmatch(string(header), -1) {
		declared = append(declared, m[1])
	}
	var bound []string
	for _, s := range (&shim{}).symbols() {
		bound = append(bound, s.Name)
	}
	assert.ElementsMatch(t, declared, bound)
	assert.Contains(t, string(header), fmt.Sprintf("#define MLPH_TRT_ABI %d", shimABI))
}
