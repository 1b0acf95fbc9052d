package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// gcc runs gcc: the tests compile the fake runtimes.
func gcc(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "gcc %v:\n%s", args, out)
}

// accelSrc is the plugins' source directory, and fakeInclude the
// compiler flag that finds fakedevice.h, which the fake runtimes include.
const (
	accelSrc    = "../../plugins/"
	fakeInclude = "-I" + accelSrc + "internal/accel/acceltest/cfake"
)

// tensorrtFakes compiles the fake CUDA runtime and TensorRT shim into
// fakes and writes a plan of the bundled Fashion-MNIST model there: it
// returns the environment that points the plugin at them (and at no
// NVML), and the plan.
func tensorrtFakes(t *testing.T, fakes string) (env []string, plan string) {
	t.Helper()
	cudart, shim := filepath.Join(fakes, "libcudart.so.12"), filepath.Join(fakes, "libmlph_trt.so")
	gcc(t, "-shared", "-fPIC", "-O2", fakeInclude, "-o", cudart, accelSrc+"tensorrt/trt/testdata/fake/fakecudart.c",
		"-Wl,-soname,libcudart.so.12", "-lpthread")
	gcc(t, "-shared", "-fPIC", "-O2", "-I", accelSrc+"tensorrt/shim", "-o", shim,
		accelSrc+"tensorrt/trt/testdata/fake/faketrt.c", cudart, "-Wl,-rpath,"+fakes, "-lpthread")
	plan = filepath.Join(fakes, "fashion.plan")
	require.NoError(t, os.WriteFile(plan, []byte("faketrt 1\ninput x uint8 -1x1x28x28 max=64\noutput y float32 -1x10\n"), 0o644))
	// No NVML: the machine's own would list its MIG instances.
	return []string{"MLPERF_TENSORRT_CUDART=" + cudart, "MLPERF_TENSORRT_SHIM=" + shim,
		"MLPERF_TENSORRT_NVML=" + filepath.Join(fakes, "no-libnvidia-ml.so.1")}, plan
}

// columns matches the padding between tabwriter columns.
var columns = regexp.MustCompile(` {2,}`)

// TestAcceleratorPlugins runs the promise of the README: `--plugin
// tensorrt` and `--plugin qaic`, the real plugin binaries installed in a
// plugin directory, with no rebuild of the host. No GPU or AIC card here:
// the plugins bind fake runtimes (C libraries with the real entry points,
// compiled by this test) exactly as they bind the real ones.
func TestAcceleratorPlugins(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the plugins' own tests run their binaries against the fakes, TestSubprocessPlugin the host's side")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the fake CUDA/TensorRT and AIC runtimes are compiled by the test")
	}
	tests := []struct {
		name    string
		missing string // named by the error when the runtime is absent
		setup   func(t *testing.T, fakes string) (env, args []string)
	}{
		{name: "tensorrt", missing: "libcudart", setup: func(t *testing.T, fakes string) ([]string, []string) {
			env, plan := tensorrtFakes(t, fakes)
			return env, []string{"--set", "tensorrt.engine=" + plan}
		}},
		{name: "qaic", missing: "libQAic", setup: func(t *testing.T, fakes string) ([]string, []string) {
			lib := filepath.Join(fakes, "libQAic.so")
			gcc(t, "-shared", "-fPIC", "-O2", fakeInclude, "-o", lib, accelSrc+"qaic/aic/testdata/fake/fakeqaic.c", "-lpthread")
			qpc := filepath.Join(fakes, "fashion.qpc")
			require.NoError(t, os.WriteFile(qpc, []byte("fakeqpc 1\nbatch 8\ncores 4\ninput x 784\noutput y 40\n"), 0o644))
			return []string{"MLPERF_QAIC_LIBRARY=" + lib}, []string{"--set", "qaic.qpc=" + qpc, "--set", "qaic.batch_size=8"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			plugins := installPlugin(t, dir, tt.name, accelSrc+tt.name+"/cmd/"+tt.name, accelSrc+tt.name+"/cmd/"+tt.name+"/plugin.json")
			fakes := filepath.Join(dir, "fakes")
			require.NoError(t, os.MkdirAll(fakes, 0o755))
			env, opts := tt.setup(t, fakes)

			r := mlperfHostEnv(t, dir, env, append([]string{"plugins", "check", tt.name, "--plugin-dirs", plugins}, opts...)...)
			require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "plugin "+tt.name+" passes")

			// What the plugin says of itself: its devices, where they are,
			// and every option with its type, default and doc.
			r = mlperfHostEnv(t, dir, env, "plugins", "describe", tt.name, "--plugin-dirs", plugins)
			require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			// The columns' widths follow the temporary directory's name.
			golden(t, "describe_"+tt.name, columns.ReplaceAllString(strings.ReplaceAll(r.stdout, dir, "$DIR"), "  "))

			// The fakes have no kernel time: the expected QPS is the host's.
			args := append([]string{"run", "--plugin", tt.name, "--plugin-dirs", plugins, "--scenario", "Offline",
				"--set", "settings.target_qps=2000000", "--set", "settings.min_duration=200", "--out", "logs"}, opts...)
			r = mlperfHostEnv(t, dir, env, args...)
			assertVerdict(t, r, filepath.Join(dir, "logs"))
			assert.Contains(t, r.stdout, tt.name+" 0.1.0 (process, ")

			// Without the runtime: a clear error naming what is missing.
			r = mlperfHostEnv(t, dir, nil, args...)
			assert.Equal(t, exitcode.PluginFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, "FAILED_PRECONDITION")
			assert.Contains(t, r.stderr, tt.missing)
		})
	}
}
