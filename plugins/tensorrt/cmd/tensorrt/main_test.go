package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

func TestNewBackendFromEnvironment(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]string{
		"MLPERF_TENSORRT_STREAMS=0": "streams must be at least 1",
		"MLPERF_TENSORRT_BOGUS=1":   "option bogus: unknown option",
	} {
		_, err := newBackend([]string{env})
		require.Error(t, err, env)
		assert.Contains(t, err.Error(), "MLPERF_TENSORRT_* environment variables")
		assert.Contains(t, err.Error(), want)
	}

	b, err := newBackend([]string{"MLPERF_TENSORRT_CUDART=/nonexistent/libcudart.so.12", "MLPERF_TENSORRT_STREAMS=3"})
	require.NoError(t, err, "a missing runtime is no reason not to start")
	info := b.Info()
	assert.Empty(t, info.Devices)
	assert.Contains(t, info.Description, "/nonexistent/libcudart.so.12")
	assert.Equal(t, 3, info.MaxInFlight, "streams × one device when none is found")
}

// TestBinary builds the plugin and runs it as the host would find it: the
// manifest's entry, started as a subprocess. With -serve it serves the
// ABI's gRPC service on a socket it prints, which the test drives with the
// ABI's generated client.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := sdktest.BuildPlugin(t, ".", "tensorrt")
	var m struct {
		Name     string `json:"name"`
		Version  string `json:"version"`
		Kind     string `json:"kind"`
		ABIMajor int    `json:"abi_major"`
		Entry    string `json:"entry"`
	}
	raw, err := os.ReadFile("plugin.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &m))
	assert.Equal(t, "process", m.Kind)
	assert.Equal(t, "tensorrt", m.Entry, "make accel-plugins installs the binary under this name")
	assert.Equal(t, abi.Major, m.ABIMajor)

	t.Run("version matches the manifest", func(t *testing.T) {
		t.Parallel()
		stdout, _, code := sdktest.RunPlugin(t, bin, nil, "-version")
		assert.Zero(t, code)
		assert.Equal(t, fmt.Sprintf("%s %s (mlperf-host plugin ABI %s)\n", m.Name, m.Version,
			abi.VersionString(abi.Major, abi.Minor)), stdout)
	})
	t.Run("without the handshake cookie", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := sdktest.RunPlugin(t, bin, []string{"MLPERF_TENSORRT_CUDART=/nonexistent/libcudart.so.12"})
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, `This is the "tensorrt" backend plugin `+m.Version)
		assert.Contains(t, stderr, "cannot load libcudart", "the usage says why no GPU is listed")
		assert.Contains(t, stderr, "mlperf-host --plugin tensorrt")
	})
	t.Run("bad environment", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := sdktest.RunPlugin(t, bin, []string{"MLPERF_TENSORRT_STREAMS=zero"}, "-version")
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "option streams")
	})
	t.Run("serves without a CUDA runtime", func(t *testing.T) {
		t.Parallel()
		c := sdktest.ServePlugin(t, bin, "tensorrt", "MLPERF_TENSORRT_CUDART=/nonexistent/libcudart.so.12")
		info, err := c.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
		require.NoError(t, err)
		require.Equal(t, abi.OK, abi.Code(info.GetStatus().GetCode()), info.GetStatus().GetMessage())
		assert.Empty(t, info.GetDevices())
		assert.Contains(t, info.GetDescription(), "libcudart")
		load, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: []byte("plan")})
		require.NoError(t, err)
		assert.Equal(t, abi.FailedPrecondition.String(), abi.Code(load.GetStatus().GetCode()).String())
		assert.Contains(t, load.GetStatus().GetMessage(), "/nonexistent/libcudart.so.12")
		assert.Contains(t, load.GetStatus().GetMessage(), "install the CUDA runtime")
		closed, err := c.Close(t.Context(), &backendv1.CloseRequest{})
		require.NoError(t, err)
		assert.Equal(t, abi.OK, abi.Code(closed.GetStatus().GetCode()))
	})
	t.Run("serves on the fake runtime", func(t *testing.T) {
		t.Parallel()
		cudart, shim := fakeRuntime(t)
		c := sdktest.ServePlugin(t, bin, "tensorrt", "MLPERF_TENSORRT_CUDART="+cudart, "MLPERF_TENSORRT_SHIM="+shim)
		info, err := c.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
		require.NoError(t, err)
		require.Len(t, info.GetDevices(), 2, info.GetDescription())
		assert.Equal(t, "Fake GPU 1", info.GetDevices()[1].GetName())
		assert.Equal(t, uint32(4), info.GetMaxInFlight(), "2 streams × 2 devices")
		// The fake kernel copies the input row to the output row.
		plan := []byte("faketrt 1\ninput x uint8 -1x16 max=8\noutput y uint8 -1x16\n")
		load, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: plan,
			Options: map[string]string{"batch_size": "4", "samples_on_device": "device"}})
		require.NoError(t, err)
		require.Equal(t, abi.OK, abi.Code(load.GetStatus().GetCode()), load.GetStatus().GetMessage())
		sdktest.EchoQuery(t, c, 16, 16)
		closed, err := c.Close(t.Context(), &backendv1.CloseRequest{})
		require.NoError(t, err)
		assert.Equal(t, abi.OK, abi.Code(closed.GetStatus().GetCode()), closed.GetStatus().GetMessage())
	})
}

// fakeRuntime links the trt package's fake CUDA runtime and TensorRT shim
// (plugins/tensorrt/trt/testdata/fake) into shared libraries.
func fakeRuntime(t *testing.T) (cudart, shim string) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the fake CUDA runtime and TensorRT shim are compiled by the test")
	}
	dir := t.TempDir()
	cudart = filepath.Join(dir, "libcudart.so.12")
	shim = filepath.Join(dir, "libmlph_trt.so")
	src := filepath.Join("..", "..", "trt", "testdata", "fake")
	for _, args := range [][]string{
		{"-o", cudart, filepath.Join(src, "fakecudart.c"), "-Wl,-soname,libcudart.so.12"},
		{"-I", filepath.Join("..", "..", "shim"), "-o", shim, filepath.Join(src, "faketrt.c"), cudart, "-Wl,-rpath," + dir},
	} {
		out, err := exec.Command("gcc", append([]string{"-shared", "-fPIC", "-O2", "-Wall"}, append(args, "-lpthread")...)...).CombinedOutput()
		require.NoError(t, err, "gcc: %s", out)
	}
	return cudart, shim
}
