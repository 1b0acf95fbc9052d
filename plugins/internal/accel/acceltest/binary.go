package acceltest

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// Binary describes an accelerator plugin's command (plugins/NAME/cmd/NAME)
// for [Binary.Test]: how its environment sets options, what it says
// without its runtime, and a model it serves on its fake runtime.
type Binary struct {
	// Name is the plugin's name, its manifest entry and binary name.
	Name string
	// NewBackend is the command's newBackend: options from environ.
	NewBackend func(environ []string) (sdk.Backend, error)
	// EnvPrefix starts the option variables, e.g. "MLPERF_TENSORRT_".
	EnvPrefix string
	// BadEnv maps an environment entry to the error it gives.
	BadEnv map[string]string
	// Missing points the runtime at a library that does not exist.
	Missing string
	// MissingSays is in the usage and in Load's error without the runtime
	// (e.g. "cannot load libcudart", "install the CUDA runtime").
	MissingSays, MissingHint string
	// InFlightEnv sets the in-flight count to 3 on one device.
	InFlightEnv string
	// Fake returns the environment that points the plugin at its fake
	// runtime with two devices.
	Fake func(t *testing.T) []string
	// SecondDevice is the name of the fake's device 1.
	SecondDevice string
	// Model is loaded with Options on the fake; it echoes 16-byte samples.
	Model   []byte
	Options map[string]string
}

// Test checks the command: the environment sets options, a missing
// runtime is no reason not to start, and the binary, built and started as
// the host does, answers -version and the handshake, serves without its
// runtime (Info lists no device, Load fails with FAILED_PRECONDITION and
// the remedy) and serves a model on its fake runtime.
func (c Binary) Test(t *testing.T) {
	t.Run("backend from the environment", func(t *testing.T) {
		t.Parallel()
		for env, want := range c.BadEnv {
			_, err := c.NewBackend([]string{env})
			require.Error(t, err, env)
			assert.Contains(t, err.Error(), c.EnvPrefix+"* environment variables")
			assert.Contains(t, err.Error(), want)
		}
		b, err := c.NewBackend([]string{c.Missing, c.InFlightEnv})
		require.NoError(t, err, "a missing runtime is no reason not to start")
		info := b.Info()
		assert.Empty(t, info.Devices)
		assert.Contains(t, info.Description, missingPath(c.Missing))
		assert.Equal(t, 3, info.MaxInFlight, "three in flight on one device when none is found")
	})
	t.Run("binary", c.testBinary)
}

// missingPath is the path of an environment entry NAME=PATH.
func missingPath(env string) string {
	for i := range env {
		if env[i] == '=' {
			return env[i+1:]
		}
	}
	return env
}

// testBinary builds the plugin and runs it as the host would find it: the
// manifest's entry, started as a subprocess. With -serve it serves the
// ABI's gRPC service on a socket it prints, which the test drives with the
// ABI's generated client.
func (c Binary) testBinary(t *testing.T) {
	t.Parallel()
	bin := sdktest.BuildPlugin(t, ".", c.Name)
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
	assert.Equal(t, c.Name, m.Entry, "make accel-plugins installs the binary under this name")
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
		_, stderr, code := sdktest.RunPlugin(t, bin, []string{c.Missing})
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, fmt.Sprintf("This is the %q backend plugin %s", c.Name, m.Version))
		assert.Contains(t, stderr, c.MissingSays, "the usage says why no device is listed")
		assert.Contains(t, stderr, "mlperf-host --plugin "+c.Name)
	})
	t.Run("bad environment", func(t *testing.T) {
		t.Parallel()
		for env, want := range c.BadEnv {
			_, stderr, code := sdktest.RunPlugin(t, bin, []string{env}, "-version")
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, want)
		}
	})
	t.Run("serves without the runtime", func(t *testing.T) {
		t.Parallel()
		cl := sdktest.ServePlugin(t, bin, c.Name, c.Missing)
		info, err := cl.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
		require.NoError(t, err)
		require.Equal(t, abi.OK, abi.Code(info.GetStatus().GetCode()), info.GetStatus().GetMessage())
		assert.Empty(t, info.GetDevices())
		assert.Contains(t, info.GetDescription(), missingPath(c.Missing))
		load, err := cl.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: []byte("model")})
		require.NoError(t, err)
		assert.Equal(t, abi.FailedPrecondition.String(), abi.Code(load.GetStatus().GetCode()).String())
		assert.Contains(t, load.GetStatus().GetMessage(), missingPath(c.Missing))
		assert.Contains(t, load.GetStatus().GetMessage(), c.MissingHint)
		closed, err := cl.Close(t.Context(), &backendv1.CloseRequest{})
		require.NoError(t, err)
		assert.Equal(t, abi.OK, abi.Code(closed.GetStatus().GetCode()))
	})
	t.Run("serves on the fake runtime", func(t *testing.T) {
		t.Parallel()
		cl := sdktest.ServePlugin(t, bin, c.Name, c.Fake(t)...)
		info, err := cl.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
		require.NoError(t, err)
		require.Len(t, info.GetDevices(), 2, info.GetDescription())
		assert.Equal(t, c.SecondDevice, info.GetDevices()[1].GetName())
		assert.Equal(t, uint32(4), info.GetMaxInFlight(), "2 devices × 2 in flight each by default")
		load, err := cl.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: c.Model, Options: c.Options})
		require.NoError(t, err)
		require.Equal(t, abi.OK, abi.Code(load.GetStatus().GetCode()), load.GetStatus().GetMessage())
		sdktest.EchoQuery(t, cl, 16, 16)
		closed, err := cl.Close(t.Context(), &backendv1.CloseRequest{})
		require.NoError(t, err)
		assert.Equal(t, abi.OK, abi.Code(closed.GetStatus().GetCode()), closed.GetStatus().GetMessage())
	})
}
