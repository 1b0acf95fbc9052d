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
		"MLPERF_QAIC_SET_SIZE=0": "set_size must be at least 1",
		"MLPERF_QAIC_BOGUS=1":    "option bogus: unknown",
	} {
		_, err := newBackend([]string{env})
		require.Error(t, err, env)
		assert.Contains(t, err.Error(), "MLPERF_QAIC_* environment variables")
		assert.Contains(t, err.Error(), want)
	}

	b, err := newBackend([]string{"MLPERF_QAIC_LIBRARY=/nonexistent/libQAic.so", "MLPERF_QAIC_SET_SIZE=3"})
	require.NoError(t, err, "a missing runtime is no reason not to start")
	info := b.Info()
	assert.Empty(t, info.Devices)
	assert.Contains(t, info.Description, "/nonexistent/libQAic.so")
	assert.Equal(t, 3, info.MaxInFlight, "one activation × set size when no device is found")
}

// TestBinary builds the plugin and runs it as the host would find it: the
// manifest's entry, started as a subprocess. With -serve it serves the
// ABI's gRPC service on a socket it prints, which the test drives with the
// ABI's generated client.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := sdktest.BuildPlugin(t, ".", "qaic")
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
	assert.Equal(t, "qaic", m.Entry, "make accel-plugins installs the binary under this name")
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
		_, stderr, code := sdktest.RunPlugin(t, bin, []string{"MLPERF_QAIC_LIBRARY=/nonexistent/libQAic.so"})
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, `This is the "qaic" backend plugin `+m.Version)
		assert.Contains(t, stderr, "cannot load libQAic.so", "the usage says why no device is listed")
		assert.Contains(t, stderr, "mlperf-host --plugin qaic")
	})
	t.Run("bad environment", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := sdktest.RunPlugin(t, bin, []string{"MLPERF_QAIC_ACTIVATIONS=zero"}, "-version")
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "option activations")
	})
	t.Run("serves without the AIC runtime", func(t *testing.T) {
		t.Parallel()
		c := sdktest.ServePlugin(t, bin, "qaic", "MLPERF_QAIC_LIBRARY=/nonexistent/libQAic.so")
		info, err := c.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
		require.NoError(t, err)
		require.Equal(t, abi.OK, abi.Code(info.GetStatus().GetCode()), info.GetStatus().GetMessage())
		assert.Empty(t, info.GetDevices())
		assert.Contains(t, info.GetDescription(), "libQAic.so")
		load, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: []byte("qpc")})
		require.NoError(t, err)
		assert.Equal(t, abi.FailedPrecondition.String(), abi.Code(load.GetStatus().GetCode()).String())
		assert.Contains(t, load.GetStatus().GetMessage(), "/nonexistent/libQAic.so")
		assert.Contains(t, load.GetStatus().GetMessage(), "install the Qualcomm Cloud AI Platform")
		closed, err := c.Close(t.Context(), &backendv1.CloseRequest{})
		require.NoError(t, err)
		assert.Equal(t, abi.OK, abi.Code(closed.GetStatus().GetCode()))
	})
	t.Run("serves on the fake runtime", func(t *testing.T) {
		t.Parallel()
		c := sdktest.ServePlugin(t, bin, "qaic", "MLPERF_QAIC_LIBRARY="+fakeRuntime(t), "MLPERF_QAIC_PROBE_DEVICES=4")
		info, err := c.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
		require.NoError(t, err)
		require.Len(t, info.GetDevices(), 2, info.GetDescription())
		assert.Equal(t, "Cloud AI 100 (QID 1)", info.GetDevices()[1].GetName())
		assert.Equal(t, uint32(4), info.GetMaxInFlight(), "2 devices × 1 activation × 2 exec objects")
		// The fake program copies the input row to the output row.
		program := []byte("fakeqpc 1\nbatch 4\ncores 4\ninput x 16\noutput y 16\n")
		load, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: program,
			Options: map[string]string{"batch_size": "4"}})
		require.NoError(t, err)
		require.Equal(t, abi.OK, abi.Code(load.GetStatus().GetCode()), load.GetStatus().GetMessage())
		sdktest.EchoQuery(t, c, 16, 16)
		closed, err := c.Close(t.Context(), &backendv1.CloseRequest{})
		require.NoError(t, err)
		assert.Equal(t, abi.OK, abi.Code(closed.GetStatus().GetCode()), closed.GetStatus().GetMessage())
	})
}

// fakeRuntime compiles the aic package's fake libQAic
// (plugins/qaic/aic/testdata/fake) into a shared library.
func fakeRuntime(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the fake AIC runtime is compiled by the test")
	}
	lib := filepath.Join(t.TempDir(), "libQAic.so")
	out, err := exec.Command("gcc", "-shared", "-fPIC", "-O2", "-Wall", "-o", lib,
		filepath.Join("..", "..", "aic", "testdata", "fake", "fakeqaic.c"), "-lpthread").CombinedOutput()
	require.NoError(t, err, "gcc: %s", out)
	return lib
}
