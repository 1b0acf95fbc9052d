package main

import (
	"path/filepath"
	"testing"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// TestCommand checks the environment, the binary and its handshake, and
// that it serves on the fake CUDA runtime and shim.
func TestCommand(t *testing.T) {
	t.Parallel()
	acceltest.Binary{
		Name:       "tensorrt",
		NewBackend: func(environ []string) (sdk.Backend, error) { return newBackend(environ) },
		EnvPrefix:  envPrefix,
		BadEnv: map[string]string{
			"MLPERF_TENSORRT_STREAMS=0":    "streams must be at least 1",
			"MLPERF_TENSORRT_BOGUS=1":      "option bogus: unknown option",
			"MLPERF_TENSORRT_STREAMS=zero": "option streams",
		},
		Missing:      "MLPERF_TENSORRT_CUDART=/nonexistent/libcudart.so.12",
		MissingSays:  "cannot load libcudart",
		MissingHint:  "install the CUDA runtime",
		InFlightEnv:  "MLPERF_TENSORRT_STREAMS=3",
		Fake:         fakeRuntime,
		SecondDevice: "Fake GPU 1",
		// The fake kernel copies the input row to the output row.
		Model:   []byte("faketrt 1\ninput x uint8 -1x16 max=8\noutput y uint8 -1x16\n"),
		Options: map[string]string{"batch_size": "4", "start_from_device": "true"},
	}.Test(t)
}

// fakeRuntime links the trt package's fake CUDA runtime and TensorRT shim
// (plugins/tensorrt/trt/testdata/fake) into shared libraries and returns
// the environment that selects them.
func fakeRuntime(t *testing.T) []string {
	t.Helper()
	acceltest.RequireGCC(t, "the fake CUDA runtime and TensorRT shim are")
	dir := t.TempDir()
	cudart := filepath.Join(dir, "libcudart.so.12")
	shim := filepath.Join(dir, "libmlph_trt.so")
	src := filepath.Join("..", "..", "trt", "testdata", "fake")
	acceltest.BuildShared(t, cudart, filepath.Join(src, "fakecudart.c"), "-Wl,-soname,libcudart.so.12")
	acceltest.BuildShared(t, shim, "-I", filepath.Join("..", "..", "shim"), filepath.Join(src, "faketrt.c"), cudart,
		"-Wl,-rpath,"+dir)
	return []string{"MLPERF_TENSORRT_CUDART=" + cudart, "MLPERF_TENSORRT_SHIM=" + shim}
}
