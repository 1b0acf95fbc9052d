package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMIGPool: `--pool 'tensorrt{mig=all}'` runs one tensorrt plugin
// process per MIG instance NVML lists, each given its instance through
// CUDA_VISIBLE_DEVICES, as one SUT; `plugins describe` lists the
// instances. The plugin binds a fake NVML with three instances on one GPU
// (and the fake CUDA runtime, which ignores CUDA_VISIBLE_DEVICES).
func TestMIGPool(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the plugin's and the runner's tests cover the listing and the expansion")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the fake CUDA, TensorRT and NVML libraries are compiled by the test")
	}
	dir := t.TempDir()
	plugins := installPlugin(t, dir, "tensorrt", accelSrc+"tensorrt/cmd/tensorrt", accelSrc+"tensorrt/cmd/tensorrt/plugin.json")
	fakes := filepath.Join(dir, "fakes")
	require.NoError(t, os.MkdirAll(fakes, 0o755))
	env, plan := tensorrtFakes(t, fakes)
	nvml := filepath.Join(fakes, "libnvidia-ml.so.1")
	gcc(t, "-shared", "-fPIC", "-O2", "-o", nvml, accelSrc+"tensorrt/trt/testdata/fake/fakenvml.c", "-lpthread")
	// The last MLPERF_TENSORRT_NVML wins: the fake NVML.
	env = append(env, "MLPERF_TENSORRT_NVML="+nvml, "FAKE_NVML_MIG=1g.10gb,1g.10gb,2g.20gb")

	r := mlperfHostEnv(t, dir, env, "plugins", "describe", "tensorrt", "--plugin-dirs", plugins)
	require.Zero(t, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "MIG-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae02")
	assert.Contains(t, r.stdout, "NVIDIA H100 80GB HBM3 MIG 2g.20gb")

	logs := filepath.Join(dir, "logs")
	r = mlperfHostEnv(t, dir, env, "run", "--pool", "tensorrt{mig=all}", "--plugin-dirs", plugins, "--scenario", "Offline",
		"--set", "settings.target_qps=2000000", "--set", "settings.min_duration=200", "--set", "tensorrt.engine="+plan, "--out", logs)
	assertVerdict(t, r, logs)
	_, started := poolMembers(t, logs)
	require.Len(t, started, 3, "one member per MIG instance")
	for k, m := range started {
		assert.Equal(t, "tensorrt#0-mig"+string(rune('0'+k)), m["name"])
	}

	r = mlperfHostEnv(t, dir, env, "run", "--pool", "tensorrt{mig=7g.80gb}", "--plugin-dirs", plugins, "--scenario", "Offline",
		"--set", "tensorrt.engine="+plan, "--out", filepath.Join(dir, "none"))
	assert.NotZero(t, r.code)
	assert.Contains(t, r.stderr, "mig=7g.80gb: no MIG instance of that profile")
}
