package trt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// fakeONNX is a model the fake shim's builder takes: fixed shapes without
// the batch dimension, and plugin layers.
func fakeONNX(lines ...string) []byte {
	return []byte("fakeonnx 1\n" + strings.Join(lines, "\n") + "\n")
}

func (f *fake) builds() int64 { return int64(f.tr.Call("fake_trt_builds")) }

// TestBuildFromONNX checks the untimed build step: an ONNX model becomes an
// engine with the options' batch range and profiles, kept in the engine
// cache under a key of the model, GPU architecture, TensorRT version and
// options, so that the next Load with the same key does not build again.
func TestBuildFromONNX(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<24)
	dir := t.TempDir()
	model := filepath.Join(dir, "model.onnx")
	require.NoError(t, os.WriteFile(model, fakeONNX("input x uint8 16", "output y uint8 16"), 0o600))
	cache := filepath.Join(dir, "engines")
	load := func(opts map[string]string) *Backend {
		o := map[string]string{"engine_cache": cache, "batch_size": "8", "streams": "2"}
		for k, v := range opts {
			o[k] = v
		}
		b, err := New(f.config())
		require.NoError(t, err)
		require.NoError(t, b.Load(t.Context(), sdk.Model{Path: model, Options: o}))
		t.Cleanup(func() { _ = b.Close() })
		return b
	}
	b := load(nil)
	assert.Equal(t, int64(1), f.builds())
	m := modelOf(t, b)
	assert.True(t, m.layout.dynamic)
	assert.Equal(t, 8, m.layout.maxBatch, "build_batch follows batch_size")
	checkEcho(t, b, acceltest.Seq(5), 16, true)
	plans, err := filepath.Glob(filepath.Join(cache, "*.plan"))
	require.NoError(t, err)
	require.Len(t, plans, 1)
	assert.Regexp(t, `^[0-9a-f]{16}-sm90-trt100300-b8-fp16-p2\.plan$`, filepath.Base(plans[0]))

	assert.Equal(t, "fp16", b.SubmissionFacts().WeightDataTypes, "the build says what it made of the weights")

	load(nil)
	assert.Equal(t, int64(1), f.builds(), "the cached engine is used")
	load(map[string]string{"precision": "fp32"})
	assert.Equal(t, int64(2), f.builds(), "another precision is another engine")

	calib := filepath.Join(dir, "calib.cache")
	require.NoError(t, os.WriteFile(calib, []byte("scales"), 0o600))
	facts := load(map[string]string{"precision": "int8", "calibration_cache": calib}).SubmissionFacts()
	assert.Equal(t, [2]string{"int8", "quantization"}, [2]string{facts.WeightDataTypes, facts.WeightTransformations})
	plans, err = filepath.Glob(filepath.Join(cache, "*-int8-p2-c*.plan"))
	require.NoError(t, err)
	assert.Len(t, plans, 1, "an INT8 key includes the calibration cache")

	// Bytes the host sends are built with build=true.
	bb, err := New(f.config())
	require.NoError(t, err)
	t.Cleanup(func() { _ = bb.Close() })
	require.NoError(t, bb.Load(t.Context(), sdk.Model{Bytes: fakeONNX("input x uint8 4", "output y uint8 4"),
		Options: map[string]string{"build": "true"}}))
	checkEcho(t, bb, acceltest.Seq(3), 4, true)
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		model []byte
		opts  map[string]string
		want  string
	}{
		{name: "not ONNX", model: []byte("garbage"), want: "not a fakeonnx model"},
		{name: "dynamic inner dimension without a range", model: fakeONNX("input x uint8 -1x4", "output y uint8 4"),
			want: "input x has a dynamic dimension other than the batch and no range"},
		{name: "a range of another rank", model: fakeONNX("input x uint8 -1x4", "output y uint8 4"),
			opts: map[string]string{"build_shapes": "x:1/2/3"}, want: "input x has 2 dimensions after the batch, its range 1"},
		{name: "a range that does not hold a static dimension", model: fakeONNX("input x uint8 -1x4", "output y uint8 4"),
			opts: map[string]string{"build_shapes": "x:1x2/2x4/3x4"}, want: "input x dimension 2: bad range 2/4/4"},
		{name: "INT8 without a calibration cache", model: fakeONNX("input x uint8 4", "output y uint8 4"),
			opts: map[string]string{"precision": "int8"}, want: "precision=int8 needs calibration_cache"},
		{name: "an unregistered plugin op", model: fakeONNX("input x uint8 4", "output y uint8 4", "plugin MyNMS"),
			want: "no importer for plugin op MyNMS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<20)
			b, err := New(f.config())
			require.NoError(t, err)
			opts := map[string]string{"build": "true"}
			for k, v := range tt.opts {
				opts[k] = v
			}
			err = b.Load(t.Context(), sdk.Model{Bytes: tt.model, Options: opts})
			require.ErrorContains(t, err, tt.want)
			require.NoError(t, b.Close())
			assert.Equal(t, liveObjects{}, f.live())
		})
	}
}

// TestPluginLayers checks that plugin layers are registered before the
// engine is deserialized: TensorRT's stock ones (initLibNvInferPlugins)
// unless stock_plugins=false, and the libraries the plugins option lists.
func TestPluginLayers(t *testing.T) {
	t.Parallel()
	lib := filepath.Join(t.TempDir(), "libmynms.so")
	require.NoError(t, os.WriteFile(lib, []byte("fakeplugin MyNMS\n"), 0o600))
	tests := []struct {
		name, plugin string
		opts         map[string]string
		want         string // "" loads
	}{
		{name: "stock plugin", plugin: "EfficientNMS_TRT"},
		{name: "stock plugins off", plugin: "EfficientNMS_TRT", opts: map[string]string{"stock_plugins": "false"},
			want: "could not find plugin EfficientNMS_TRT"},
		{name: "library plugin", plugin: "MyNMS", opts: map[string]string{"plugins": lib}},
		{name: "library missing", plugin: "MyNMS", want: "could not find plugin MyNMS"},
		{name: "not a plugin library", plugin: "MyNMS", opts: map[string]string{"plugins": "/nonexistent/lib.so"},
			want: "load plugin library /nonexistent/lib.so"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<20)
			b, err := New(f.config())
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.Close() })
			err = b.Load(t.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple, "plugin "+tt.plugin),
				Options: tt.opts})
			if tt.want != "" {
				require.ErrorContains(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			checkEcho(t, b, acceltest.Seq(2), 16, true)
		})
	}
}
