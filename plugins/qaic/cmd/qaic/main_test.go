package main

import (
	"path/filepath"
	"testing"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// TestCommand checks the environment, the binary and its handshake, and
// that it serves on the fake AIC runtime.
func TestCommand(t *testing.T) {
	t.Parallel()
	acceltest.Binary{
		Name:       "qaic",
		NewBackend: func(environ []string) (sdk.Backend, error) { return newBackend(environ) },
		EnvPrefix:  envPrefix,
		BadEnv: map[string]string{
			"MLPERF_QAIC_SET_SIZE=0":       "set_size must be at least 1",
			"MLPERF_QAIC_BOGUS=1":          "option bogus: unknown",
			"MLPERF_QAIC_ACTIVATIONS=zero": "option activations",
		},
		Missing:      "MLPERF_QAIC_LIBRARY=/nonexistent/libQAic.so",
		MissingSays:  "cannot load libQAic.so",
		MissingHint:  "install the Qualcomm Cloud AI Platform",
		InFlightEnv:  "MLPERF_QAIC_SET_SIZE=3",
		Fake:         fakeRuntime,
		SecondDevice: "Cloud AI 100 (QID 1)",
		// The fake program copies the input row to the output row.
		Model:   []byte("fakeqpc 1\nbatch 4\ncores 4\ninput x 16\noutput y 16\n"),
		Options: map[string]string{"batch_size": "4"},
	}.Test(t)
}

// fakeRuntime compiles the aic package's fake libQAic
// (plugins/qaic/aic/testdata/fake) into a shared library and returns the
// environment that selects it, with four QIDs probed.
func fakeRuntime(t *testing.T) []string {
	t.Helper()
	acceltest.RequireGCC(t, "the fake AIC runtime is")
	lib := filepath.Join(t.TempDir(), "libQAic.so")
	acceltest.BuildShared(t, lib, filepath.Join("..", "..", "aic", "testdata", "fake", "fakeqaic.c"))
	return []string{"MLPERF_QAIC_LIBRARY=" + lib, "MLPERF_QAIC_PROBE_DEVICES=4"}
}
