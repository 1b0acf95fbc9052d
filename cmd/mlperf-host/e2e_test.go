package main

import (
	"bytes"
	endian "encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/runner"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// binary is the mlperf-host built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	if code, ok := rssWrapper(); ok { // the test binary as mlperfHostMeasured's wrapper
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "mlperf-host-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "mlperf-host")
	if err := sdktest.GoBuild(binary, ".", sdktest.Native); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// echoPlugin is the host's hand-written WASM test plugin: every sample
// completes with its 8-byte little-endian index.
func echoPlugin(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "host", "testdata", "wasm", "echo.wasm"))
	require.NoError(t, err)
	return p
}

type result struct {
	stdout, stderr string
	code           exitcode.Code
	// maxRSS is the process's peak resident memory in bytes, measured by
	// mlperfHostMeasured; 0 otherwise.
	maxRSS int64
}

// mlperfHost runs the binary in dir with a private home and no progress
// bar.
func mlperfHost(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return mlperfHostEnv(t, dir, nil, args...)
}

// mlperfHostEnv is mlperfHost with extra environment variables.
func mlperfHostEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return mlperfHostCmd(t, dir, env, binary, args...)
}

// mlperfHostCmd runs exe with args in dir as mlperfHost runs the binary.
func mlperfHostCmd(t *testing.T, dir string, env []string, exe string, args ...string) result {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "xdg"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "MLPERF_HOST_PROGRESS=never"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), exitcode.Code(code), 0}
}

// identityDataset writes a compact data set of n demo-shaped samples whose
// label is their index and whose first 8 bytes are that index in little
// endian, so that both echo plugins (the WAT one answers a sample's index,
// the SDK's example its bytes) are always right when their output is read
// as class-int64.
func identityDataset(t *testing.T, dir string, n int) string {
	t.Helper()
	samples := make([][]byte, n)
	labels := make([]int, n)
	for i := range samples {
		samples[i] = bytes.Repeat([]byte{byte(i)}, runner.DemoSpec.Bytes())
		endian.LittleEndian.PutUint64(samples[i], uint64(i))
		labels[i] = i
	}
	return writeCompactSet(t, filepath.Join(dir, "identity.mlph"), runner.DemoSpec, samples, labels)
}

// writeCompactSet writes samples and labels as a compact data set at path.
func writeCompactSet(t *testing.T, path string, spec dataset.Spec, samples [][]byte, labels []int) string {
	t.Helper()
	d, err := dataset.NewMemory(filepath.Base(path), spec, samples, labels)
	require.NoError(t, err)
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, dataset.WriteCompact(f, d))
	require.NoError(t, f.Close())
	return path
}

// fastConf is a user.conf that makes the echo plugin's runs last a
// fraction of a second: the expected latencies and rates size the query
// schedules for the plugin's microseconds. Offline expects 10 M samples/s
// so that even a quiet machine (3.6 M/s measured) does not finish before
// min_duration. A busy machine may still make a run INVALID: the tests
// check that the verdict follows the measurements (assertVerdict).
const fastConf = `*.*.min_duration = 200
*.SingleStream.target_latency = 0.002
*.MultiStream.target_latency = 0.001
*.Server.target_qps = 2000
*.Server.target_latency = 1000
*.Offline.target_qps = 10000000
`

// fast writes fastConf into dir and returns the flags that use it.
func fast(t *testing.T, dir string) []string {
	t.Helper()
	p := filepath.Join(dir, "fast.conf")
	require.NoError(t, os.WriteFile(p, []byte(fastConf), 0o644))
	return []string{"--user-conf", p}
}

func TestEchoScenarios(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{"SingleStream", "MultiStream", "Server", "Offline"} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"run", "--plugin", echoPlugin(t), "--scenario", sc, "--out", "logs"}, fast(t, dir)...)
			r := mlperfHost(t, dir, args...)
			assertVerdict(t, r, filepath.Join(dir, "logs"))
			assert.Contains(t, r.stdout, sc+" / PerformanceOnly")
		})
	}
}

func TestBadInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) []string
		env   []string
		code  exitcode.Code
		want  []string
	}{
		{name: "unknown flag", code: exitcode.Usage, want: []string{"flag provided but not defined: -scenari", "hint: run `mlperf-host run -h`"},
			setup: func(*testing.T, string) []string { return []string{"run", "--scenari", "Server"} }},
		{name: "unknown command", code: exitcode.Usage, want: []string{`unknown command "rnu"`},
			setup: func(*testing.T, string) []string { return []string{"rnu"} }},
		{name: "bad --set", code: exitcode.Usage, want: []string{"want KEY=VALUE"},
			setup: func(*testing.T, string) []string { return []string{"run", "--set", "onnx.threads"} }},
		{name: "bad scenario flag", code: exitcode.Config,
			want:  []string{`scenario = "Sever" (flag --scenario): want one of SingleStream, MultiStream, Server, Offline, Interactive`, "config show"},
			setup: func(*testing.T, string) []string { return []string{"run", "--scenario", "Sever"} }},
		{name: "bad env", code: exitcode.Config, want: []string{`mode = "fast" (environment MLPERF_HOST_MODE)`},
			env: []string{"MLPERF_HOST_MODE=fast"}, setup: func(*testing.T, string) []string { return []string{"run"} }},
		{name: "bad user.conf value", code: exitcode.Config, want: []string{"user.conf ", `user.conf:2: key "*.Offline.target_qps": value "lots" needs to be an integer or a double`},
			setup: func(t *testing.T, dir string) []string {
				p := filepath.Join(dir, "user.conf")
				require.NoError(t, os.WriteFile(p, []byte("# tuning\n*.Offline.target_qps = lots\n"), 0o644))
				return []string{"run", "--user-conf", p}
			}},
		{name: "missing mlperf.conf", code: exitcode.Config, want: []string{"mlperf.conf /nonexistent/mlperf.conf"},
			setup: func(*testing.T, string) []string { return []string{"run", "--mlperf-conf", "/nonexistent/mlperf.conf"} }},
		{name: "config file syntax", code: exitcode.Config, want: []string{"config file ", "run.toml"},
			setup: func(t *testing.T, dir string) []string {
				p := filepath.Join(dir, "run.toml")
				require.NoError(t, os.WriteFile(p, []byte("scenario = [\n"), 0o644))
				return []string{"run", "--config", p}
			}},
		{name: "missing data set", code: exitcode.Dataset, want: []string{"data set /nonexistent: not found", "hint: check --dataset"},
			setup: func(t *testing.T, _ string) []string {
				return []string{"run", "--plugin", echoPlugin(t), "--dataset", "/nonexistent"}
			}},
		{name: "corrupt data set", code: exitcode.Dataset, want: []string{"truncated or appended"},
			setup: func(t *testing.T, dir string) []string {
				p := identityDataset(t, dir, 8)
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(p, b[:len(b)-5], 0o644))
				return []string{"run", "--plugin", echoPlugin(t), "--dataset", p}
			}},
		{name: "data set shape", code: exitcode.Dataset, want: []string{"samples are float32[3 4], the benchmark wants uint8[1 28 28]"},
			setup: func(t *testing.T, dir string) []string {
				spec := dataset.Spec{DType: dataset.Float32, Shape: []int{3, 4}}
				var b bytes.Buffer
				require.NoError(t, dataset.WriteNPY(&b, spec, make([]byte, spec.Bytes())))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "a.npy"), b.Bytes(), 0o644))
				return []string{"run", "--plugin", echoPlugin(t), "--dataset", dir}
			}},
		{name: "missing plugin", code: exitcode.PluginNotFound, want: []string{`plugin not found: "nosuch"`, "plugins list"},
			setup: func(*testing.T, string) []string { return []string{"run", "--plugin", "nosuch"} }},
		{name: "plugin ABI mismatch", code: exitcode.PluginABI, want: []string{"speaks another ABI version", "hint: install a build of the plugin"},
			setup: func(t *testing.T, _ string) []string {
				return []string{"run", "--plugin", filepath.Join(filepath.Dir(echoPlugin(t)), "v2.wasm")}
			}},
		{name: "invalid result", code: exitcode.InvalidResult, want: []string{"the result is INVALID"},
			setup: func(t *testing.T, _ string) []string {
				// Offline at the default expected QPS of 1 cannot fill a
				// minute (uncalibrated: calibration would choose one that does).
				return []string{"run", "--plugin", echoPlugin(t), "--calibrate", "off", "--set", "settings.min_duration=60000"}
			}},
		{name: "accuracy below target", code: exitcode.AccuracyBelowTarget, want: []string{"does not reach the target acc >= 87.8130"},
			setup: func(t *testing.T, _ string) []string {
				return []string{"run", "--plugin", echoPlugin(t), "--mode", "accuracy", "--set", "accuracy_output=class-int64"}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := mlperfHostEnv(t, dir, tt.env, tt.setup(t, dir)...)
			assert.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
		})
	}
}

func TestAccuracyWithOracle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := identityDataset(t, dir, 1000)
	common := append([]string{"--plugin", echoPlugin(t), "--dataset", ds, "--set", "accuracy_output=class-int64"}, fast(t, dir)...)

	r := mlperfHost(t, dir, append([]string{"run", "--mode", "accuracy", "--out", "acc"}, common...)...)
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "accuracy=100.000%, good=1000, total=1000")

	// The accuracy command re-scores the log the run wrote.
	r = mlperfHost(t, dir, append([]string{"accuracy", "--out", "acc", "--write", "acc.txt"}, common...)...)
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "target acc >= 87.8130 (99% of 88.7): PASS")
	txt, err := os.ReadFile(filepath.Join(dir, "acc.txt"))
	require.NoError(t, err)
	assert.Equal(t, "accuracy=100.000%, good=1000, total=1000\n", string(txt))

	// Scored with the bundled labels instead, the same log fails.
	r = mlperfHost(t, dir, "accuracy", "--out", "acc", "--set", "accuracy_output=class-int64")
	assert.Equal(t, exitcode.AccuracyBelowTarget, r.code, r.stderr)
	assert.Contains(t, r.stdout, "FAIL")
}

// TestInterrupt: Ctrl-C during a run ends it with exit 130, a message
// naming the logs kept, and an INVALID summary. The run is a Server
// schedule of ten minutes at 100 queries/s: however fast the machine and
// the plugin, it cannot end before the signal arrives, so what the test
// sees is what the code decides, not a race with the run's end.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on windows")
	}
	dir := t.TempDir()
	cmd := exec.Command(binary, "run", "--plugin", echoPlugin(t), "--scenario", "Server", "--out", "logs",
		"--set", "settings.min_duration=600000", "--set", "settings.target_qps=100")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "MLPERF_HOST_PROGRESS=never")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	// Interrupt once the run is issuing queries (its schedule is in the
	// detail log).
	detail := filepath.Join(dir, "logs", "mlperf_log_detail.txt")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, err := os.ReadFile(detail); err == nil && bytes.Contains(b, []byte(`"generated_query_count"`)) {
			break
		}
		if time.Now().After(deadline) {
			// Read stderr only once the process is gone: it writes there
			// while it runs.
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			require.FailNow(t, "the run never started issuing", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, errb.String())
	// The exit code, the message and the summary say the same thing.
	assert.Equal(t, int(exitcode.Interrupted), ee.ExitCode(), errb.String())
	assert.Contains(t, errb.String(), "interrupted: the plugin was closed and the logs flushed; kept ")
	assert.Contains(t, errb.String(), "mlperf_log_detail.txt")
	assert.NotContains(t, errb.String(), "the result is INVALID", "an interrupt is reported as such, not as an invalid result")
	summary, err := os.ReadFile(filepath.Join(dir, "logs", "mlperf_log_summary.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "Result is : INVALID", "an interrupted run is not valid")
	assert.Contains(t, string(summary), "Min duration satisfied : NO", "it stopped long before its ten minutes")
}

func TestCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		want  []string
		match string // a regexp stdout must match
	}{
		{name: "help", args: []string{"help"}, want: []string{"Commands:", "submit", "plugins"}},
		{name: "version", args: []string{"version"}, want: []string{"plugin ABI v1."}},
		{name: "config show", args: []string{"config", "show", "--set", "onnx.threads=4"},
			want: []string{"options.onnx.threads", "flag --set onnx.threads=4", "settings.qsl_rng_seed", "built-in mlperf.conf v6.1 (*.*.qsl_rng_seed)"}},
		{name: "plugins list", args: []string{"plugins", "list"}, want: []string{"NAME", "VERSION"},
			match: `onnx\s+\d+\.\d+\.\d+\s+wasm\s+v1\s+\(embedded\)\s+ONNX models`},
		{name: "dataset info builtin", args: []string{"dataset", "info", "builtin:fashion-mnist"},
			want: []string{"samples  1000", "uint8[1 28 28] (784 bytes)", "labels   1000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mlperfHost(t, t.TempDir(), tt.args...)
			require.Equal(t, exitcode.OK, r.code, r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stdout, w)
			}
			if tt.match != "" && strings.Contains(r.stdout, "(embedded)") {
				// Only a binary built by `make build` embeds the plugin.
				assert.Regexp(t, tt.match, r.stdout, "the embedded plugin is described by its own Info")
			}
		})
	}
}

func TestPluginsCheckEcho(t *testing.T) {
	t.Parallel()
	r := mlperfHost(t, t.TempDir(), "plugins", "check", echoPlugin(t))
	assert.Regexp(t, `(?m)^single sample\s+ok\s`, r.stdout)
	// The hand-written echo completes samples it never loaded: the check says so.
	assert.Equal(t, exitcode.PluginFailed, r.code, r.stdout)
	assert.Regexp(t, `unknown sample index\s+FAIL\s+index \d+ was never loaded, yet it completed OK`, r.stdout)
}

func TestDatasetRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := mlperfHost(t, dir, "dataset", "export", "--format", "npy", "npy")
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	r = mlperfHost(t, dir, "dataset", "convert", "npy", "fm.mlph")
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "1000 samples of uint8[1 28 28]")
	r = mlperfHost(t, dir, "dataset", "info", "fm.mlph")
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "labels   1000")
	assert.Contains(t, r.stdout, "every sample reads and matches")
}

var (
	echoOnce    sync.Once
	echoPlugins string
	echoErr     error
)

// installEcho builds the echo plugin as a subprocess, with its manifest,
// into a plugin directory, as a vendor installs a plugin, and returns that
// directory. The tests only read it: it is built once per test binary.
func installEcho(t *testing.T) string {
	t.Helper()
	echoOnce.Do(func() {
		echoPlugins, echoErr = installPluginErr(filepath.Dir(binary), "echo", "../../examples/echo/cmd/echo", "../../examples/echo/plugins/echo/plugin.json")
	})
	require.NoError(t, echoErr)
	return echoPlugins
}

// installPlugin builds the subprocess plugin pkg into dir/plugins/name
// next to a copy of its manifest and returns dir/plugins.
func installPlugin(t *testing.T, dir, name, pkg, manifest string) string {
	t.Helper()
	plugins, err := installPluginErr(dir, name, pkg, manifest)
	require.NoError(t, err)
	return plugins
}

func installPluginErr(dir, name, pkg, manifest string) (string, error) {
	plugins := filepath.Join(dir, "plugins")
	pdir := filepath.Join(plugins, name)
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		return "", err
	}
	if err := sdktest.GoBuild(filepath.Join(pdir, name), pkg, sdktest.Native); err != nil {
		return "", err
	}
	m, err := os.ReadFile(manifest)
	if err != nil {
		return "", err
	}
	return plugins, os.WriteFile(filepath.Join(pdir, "plugin.json"), m, 0o644)
}

// TestSubprocessPlugin installs the example echo plugin as a subprocess
// plugin and finds, checks and runs it by name.
func TestSubprocessPlugin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins := installEcho(t)

	r := mlperfHost(t, dir, "plugins", "list", "--plugin-dirs", plugins)
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	assert.Regexp(t, `echo\s+0\.1\.0\s+process\s+v1`, r.stdout)

	r = mlperfHost(t, dir, "plugins", "check", "echo", "--plugin-dirs", plugins)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "plugin echo passes 15 checks")

	r = mlperfHost(t, dir, append([]string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--out", "logs"}, fast(t, dir)...)...)
	assertVerdict(t, r, filepath.Join(dir, "logs"))
	assert.Contains(t, r.stdout, "(process, max batch 256, 2 in flight)")
}

// TestPluginFailsMidRun: a plugin that crashes or panics during the timed
// run stops it with an error naming the plugin and what it did, the
// plugin-failed exit code, and the logs written so far kept.
func TestPluginFailsMidRun(t *testing.T) {
	t.Parallel()
	plugins := installEcho(t)
	tests := []struct {
		name  string
		fault string
		want  []string
	}{
		{name: "exits", fault: "exit", want: []string{`plugin "echo"`, "exited", "exit status 3", "injected exit on "}},
		{name: "panics", fault: "panic", want: []string{"plugin echo", "samples failed", "injected panic"}},
		{name: "fails samples", fault: "fail", want: []string{"plugin echo", "samples failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--out", "logs",
				"--scenario", "Server", "--set", "echo.fault=" + tt.fault, "--set", "echo.fault_after=20"}, fast(t, dir)...)
			r := mlperfHost(t, dir, args...)
			require.Equal(t, exitcode.PluginFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
			assert.Regexp(t, `failed samples\s+[1-9]`, r.stdout)
			for _, f := range []string{"mlperf_log_summary.txt", "mlperf_log_detail.txt", "mlperf_log_accuracy.json"} {
				assert.FileExists(t, filepath.Join(dir, "logs", f))
			}
			summary, err := os.ReadFile(filepath.Join(dir, "logs", "mlperf_log_summary.txt"))
			require.NoError(t, err)
			assert.Contains(t, string(summary), "Result is : INVALID")
		})
	}
}
