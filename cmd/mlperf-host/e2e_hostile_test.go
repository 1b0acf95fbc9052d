package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// The hostile tests drive the binary with plugins that misbehave (the
// echo plugin's fault modes), bad input, signals and shared directories,
// and check that every failure is fast, bounded and keeps its logs.

// privateEcho puts the echo plugin built for the test binary into
// dir/plugins/echo and returns dir/plugins and the executable: a path no
// other test runs, so that a process left behind is this test's.
func privateEcho(t *testing.T, dir string) (plugins, entry string) {
	t.Helper()
	shared := filepath.Join(installEcho(t), "echo")
	plugins = filepath.Join(dir, "plugins")
	pdir := filepath.Join(plugins, "echo")
	require.NoError(t, os.MkdirAll(pdir, 0o755))
	entry = filepath.Join(pdir, "echo")
	// A hard link where the file system allows it: a copy is written
	// through a file descriptor that a concurrent fork of this test
	// process may hold for a moment, and exec then fails with "text file
	// busy".
	if os.Link(filepath.Join(shared, "echo"), entry) != nil {
		copyFile(t, filepath.Join(shared, "echo"), entry, 0o755)
	}
	copyFile(t, filepath.Join(shared, "plugin.json"), filepath.Join(pdir, "plugin.json"), 0o644)
	return plugins, entry
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, mode))
}

// assertNoProcess fails when a process of the executable path is alive:
// the host left an orphan.
func assertNoProcess(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second) // a killed process takes a moment to go
	for {
		pids, ok := processesOf(path)
		if !ok || len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			assert.Fail(t, "orphan plugin processes", "%s: pids %v", path, pids)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFailedPluginEndsOffline: a plugin that crashes, panics, breaks the
// protocol or fails its samples during the one big Offline query ends the
// run at once: exit 7 naming the plugin and what it did, a detail log of
// a bounded number of error entries plus a count, bounded memory, no
// plugin process left.
func TestFailedPluginEndsOffline(t *testing.T) {
	t.Parallel()
	plugins, entry := privateEcho(t, t.TempDir())
	tests := []struct {
		fault string
		want  []string
		once  string // appears exactly once on stderr
	}{
		{fault: "exit", want: []string{`plugin "echo"`, "exited", "exit status 3"}},
		// The panic's stack is logged once, not copied into every sample.
		{fault: "panic", want: []string{"plugin echo", "samples failed", "backend panicked in Infer"},
			once: "examples/echo.(*Backend).misbehave"},
		{fault: "fail", want: []string{"plugin echo", "samples failed", "injected failure of sample id"}},
		{fault: "unknown-id", want: []string{`plugin "echo"`, "backend bug", "which is not in this Infer call"}},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			// 2.2 million samples in one query (10 M/s for 200 ms, plus
			// 10%); the fault strikes after the first 5000.
			args := append([]string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--out", "logs", "--scenario", "Offline",
				"--set", "echo.fault=" + tt.fault, "--set", "echo.fault_after=5000"}, fast(t, dir)...)
			start := time.Now()
			r := mlperfHostMeasured(t, dir, args...)
			took := time.Since(start)
			require.Equal(t, exitcode.PluginFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
			for _, w := range tt.want {
				assert.Contains(t, tail(r.stderr), w)
			}
			if tt.once != "" {
				assert.Equal(t, 1, strings.Count(r.stderr, tt.once), tail(r.stderr))
			}
			logs := filepath.Join(dir, "logs")
			detail, err := os.ReadFile(filepath.Join(logs, "mlperf_log_detail.txt"))
			require.NoError(t, err)
			assert.NotContains(t, string(detail), "goroutine ", "no stack in the detail log")
			assert.Less(t, len(detail), 256<<10, "the detail log does not grow with the samples left")
			assert.Contains(t, string(detail), "The SUT aborted the test: ")
			assert.LessOrEqual(t, strings.Count(string(detail), `"error_runtime"`), 64+8, "a bounded number of error entries")
			assert.Contains(t, readFile(t, logs, "mlperf_log_summary.txt"), "Result is : INVALID")
			if r.maxRSS > 0 {
				assert.Less(t, r.maxRSS, int64(768<<20), "host memory stays bounded")
			}
			assert.Less(t, took, 60*time.Second, "the run ends at the failure, not after the query")
			assertNoProcess(t, entry)
		})
	}
}

// tail is the end of a long output, for messages: the error is printed
// last.
func tail(s string) string {
	const keep = 4 << 10
	if len(s) <= keep {
		return s
	}
	return "..." + s[len(s)-keep:]
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return string(b)
}

// TestBadSettingsRefused: settings that would allocate without bound or
// cannot make a valid run, and user.conf keys no run reads, are refused
// with exit 3 naming the file, key and allowed range before anything
// runs: nothing is written, and memory stays small.
func TestBadSettingsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		conf string   // user.conf content
		set  []string // --set values
		want []string
	}{
		{name: "offline qps 1e308", conf: "*.Offline.target_qps = 1e308\n",
			want: []string{"user.conf:1 (*.Offline.target_qps)", "want a number in [0.001, 1e+09] samples/s"}},
		{name: "offline qps 1e-300", conf: "*.Offline.target_qps = 1e-300\n", want: []string{"settings.target_qps", "[0.001, 1e+09]"}},
		{name: "offline qps 0", conf: "*.Offline.target_qps = 0\n", want: []string{"settings.target_qps", "[0.001, 1e+09]"}},
		{name: "offline qps -1", conf: "*.Offline.target_qps = -1\n", want: []string{"settings.target_qps", "[0.001, 1e+09]"}},
		{name: "min_duration 99999999999999", conf: "*.*.min_duration = 99999999999999\n",
			want: []string{"settings.min_duration", "want a number in [0, 6.048e+08] ms"}},
		{name: "min_duration 2^64-1", set: []string{"settings.min_duration=18446744073709551615"},
			want: []string{"(flag --set settings.min_duration=18446744073709551615)", "[0, 6.048e+08] ms"}},
		{name: "schedule too large", set: []string{"settings.target_qps=1e9", "settings.min_duration=600000"},
			want: []string{"the settings ask for a schedule of 6.6e+11 samples", "lower target_qps"}},
		{name: "unknown user.conf key", conf: "*.Offline.target_qsp = 100\n",
			want: []string{`key "*.Offline.target_qsp": unknown setting "target_qsp" (did you mean target_qps?)`}},
		{name: "sample count over the data set", set: []string{"settings.performance_sample_count_override=5000"},
			want: []string{"the data set has 1000 samples: want at most 1000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"run", "--plugin", echoPlugin(t), "--out", "logs"}
			if tt.conf != "" {
				p := filepath.Join(dir, "user.conf")
				require.NoError(t, os.WriteFile(p, []byte(tt.conf), 0o644))
				args = append(args, "--user-conf", p)
			}
			for _, s := range tt.set {
				args = append(args, "--set", s)
			}
			r := mlperfHostMeasured(t, dir, args...)
			require.Equal(t, exitcode.Config, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
			assert.NoDirExists(t, filepath.Join(dir, "logs"), "nothing ran")
			if r.maxRSS > 0 {
				assert.Less(t, r.maxRSS, int64(256<<20))
			}
		})
	}
}

// TestDefaultPluginNotFromWorkDir: a plugins/onnx in the working
// directory (here a native executable that would leave a mark) does not
// replace the default plugin: a plain run never starts it, and says so.
func TestDefaultPluginNotFromWorkDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pdir := filepath.Join(dir, "plugins", "onnx")
	require.NoError(t, os.MkdirAll(pdir, 0o755))
	mark := filepath.Join(dir, "it-ran")
	require.NoError(t, os.WriteFile(filepath.Join(pdir, "onnx"), []byte("#!/bin/sh\ntouch "+mark+"\nexit 1\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pdir, "plugin.json"),
		[]byte(`{"name":"onnx","version":"6.6.6","kind":"process","abi_major":1,"entry":"onnx"}`), 0o644))

	r := mlperfHost(t, dir, "run", "--out", "logs")
	assert.NoFileExists(t, mark, "the working directory's plugin never ran")
	assert.Contains(t, r.stderr, "ignoring "+filepath.Join(pdir, "plugin.json")+": the default plugin")
	assert.Contains(t, r.stderr, "is never taken from the working directory")
	// A binary built by `make build` runs its embedded plugin (VALID or
	// not, as the machine's speed decides); the test's plain `go build`
	// has none to run.
	assert.Contains(t, []exitcode.Code{exitcode.OK, exitcode.InvalidResult, exitcode.PluginNotFound}, r.code, tail(r.stderr))

	// Asked for by path, it is the user's choice.
	r = mlperfHost(t, dir, "run", "--out", "logs", "--plugin", pdir)
	assert.FileExists(t, mark)
	assert.Equal(t, exitcode.PluginFailed, r.code, tail(r.stderr))
}

// bgHost is the binary running in the background.
type bgHost struct {
	cmd   *exec.Cmd
	out   bytes.Buffer // read only after wait
	errb  lockedBuffer
	start time.Time
}

// lockedBuffer is a bytes.Buffer read while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startHost starts the binary in dir as mlperfHostEnv runs it.
func startHost(t *testing.T, dir string, env []string, args ...string) *bgHost {
	t.Helper()
	return startHostExe(t, dir, env, binary, args...)
}

// startHostExe is startHost running exe (the binary through a wrapper
// such as ip netns exec).
func startHostExe(t *testing.T, dir string, env []string, exe string, args ...string) *bgHost {
	t.Helper()
	b := &bgHost{cmd: exec.Command(exe, args...)}
	b.cmd.Dir = dir
	b.cmd.Env = append(append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "xdg"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "MLPERF_HOST_PROGRESS=never"), env...)
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.errb
	require.NoError(t, b.cmd.Start())
	b.start = time.Now()
	t.Cleanup(func() {
		if b.cmd.ProcessState == nil {
			_ = b.cmd.Process.Kill()
			_ = b.cmd.Wait()
		}
	})
	return b
}

// waitFile waits until path exists; the process is killed and the test
// fails when it does not appear in time.
func (b *bgHost) waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // a loaded machine starts slowly
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			r := b.kill(t)
			require.FailNow(t, "never appeared: "+path, tail(r.stderr))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStderr waits until the process has written s on stderr.
func (b *bgHost) waitStderr(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(b.errb.String(), s) {
		if time.Now().After(deadline) {
			r := b.kill(t)
			require.FailNow(t, "never written: "+s, tail(r.stderr))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signal sends sig to the process.
func (b *bgHost) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	require.NoError(t, b.cmd.Process.Signal(sig))
}

// wait waits for the process to end and returns what it did.
func (b *bgHost) wait(t *testing.T) result {
	t.Helper()
	err := b.cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as a shell reports it
		}
	} else {
		require.NoError(t, err)
	}
	return result{b.out.String(), b.errb.String(), exitcode.Code(code), 0}
}

// kill kills the process and waits for it.
func (b *bgHost) kill(t *testing.T) result {
	t.Helper()
	_ = b.cmd.Process.Kill()
	return b.wait(t)
}

// TestOneRunPerOutDir: a second run into the output directory of a run in
// progress is refused (exit 3) naming the other run; the first run's
// files stay whole.
func TestOneRunPerOutDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	// A long run, uncalibrated: for the echo plugin's microseconds a
	// calibrated SingleStream schedule of ten minutes would fill the
	// schedule's bound (calibrate.max_samples), gigabytes.
	first := startHost(t, dir, nil, "run", "--plugin", echoPlugin(t), "--scenario", "SingleStream", "--out", "logs",
		"--mode", "submission", "--calibrate", "off", "--set", "settings.min_duration=600000")
	first.waitFile(t, filepath.Join(logs, "mlperf_log_detail.txt"))

	r := mlperfHost(t, dir, "run", "--plugin", echoPlugin(t), "--scenario", "Offline", "--out", "logs", "--mode", "accuracy")
	assert.Equal(t, exitcode.Config, r.code, tail(r.stderr))
	assert.Contains(t, r.stderr, "output directory in use by another run: logs is held by another run (pid "+
		strconv.Itoa(first.cmd.Process.Pid)+", started ")
	assert.Contains(t, r.stderr, "fashion-mnist SingleStream submission")
	assert.Contains(t, r.stderr, "hint: pass another --out")

	first.signal(t, os.Interrupt)
	fr := first.wait(t)
	require.Equal(t, exitcode.Interrupted, fr.code, tail(fr.stderr))
	acc, err := os.ReadFile(filepath.Join(logs, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	assert.True(t, json.Valid(acc), "the first run's accuracy log parses")
	assert.Contains(t, readFile(t, logs, "mlperf_log_summary.txt"), "SingleStream", "the summary is the first run's")
	assert.NoFileExists(t, filepath.Join(logs, ".mlperf-host.lock"))
}

// TestFullDisk: a log that cannot be written whole (it lands on
// /dev/full) ends the run with exit 1 naming the cause and listing the
// files renamed .incomplete; no torn file keeps an official name.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("needs /dev/full")
	}
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	require.NoError(t, os.MkdirAll(logs, 0o755))
	require.NoError(t, os.Symlink("/dev/full", filepath.Join(logs, "mlperf_log_accuracy.json")))
	r := mlperfHost(t, dir, append([]string{"run", "--plugin", echoPlugin(t), "--out", "logs", "--mode", "accuracy",
		"--set", "accuracy_output=class-int64"}, fast(t, dir)...)...)
	assert.Equal(t, exitcode.Internal, r.code, tail(r.stderr))
	assert.Contains(t, r.stderr, "no space left on device; incomplete logs renamed to .incomplete: logs/mlperf_log_accuracy.json")
	assert.NoFileExists(t, filepath.Join(logs, "mlperf_log_accuracy.json"))
	assert.NoFileExists(t, filepath.Join(logs, "accuracy.txt"), "nothing scored from a torn log")
	assert.Regexp(t, `logs\s+logs \(.*mlperf_log_accuracy.json.incomplete`, r.stdout, "the files are listed")
	assert.Contains(t, readFile(t, logs, "mlperf_log_detail.txt"), `"key": "power_end"`, "the detail log is whole")
}

// TestKilledRunKeepsDetailLog: a host killed in the middle of a Server run
// leaves a detail log with every entry written so far (settings, the
// generated schedule), not an empty file.
func TestKilledRunKeepsDetailLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	detail := filepath.Join(dir, "logs", "mlperf_log_detail.txt")
	b := startHost(t, dir, nil, "run", "--plugin", echoPlugin(t), "--scenario", "Server", "--out", "logs",
		"--set", "settings.target_qps=100", "--set", "settings.min_duration=600000")
	b.waitFile(t, detail)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(readFile(t, filepath.Dir(detail), "mlperf_log_detail.txt"), `"generated_query_count"`) {
		require.True(t, time.Now().Before(deadline), "the schedule never reached the detail log")
		time.Sleep(20 * time.Millisecond)
	}
	b.kill(t)
	text := readFile(t, filepath.Dir(detail), "mlperf_log_detail.txt")
	assert.Contains(t, text, `"key": "effective_target_qps"`)
	assert.True(t, strings.HasSuffix(text, "}}\n"), "whole lines")
}

// TestInterruptReachesEveryCall: Ctrl-C stops a run whose plugin does not
// cooperate within seconds, not at the plugin's call or close deadlines:
// a WASM guest looping in Load (call deadline: 5 minutes), a subprocess
// plugin that never completes its samples (stall deadline: a minute;
// close deadline: 10 s). A second Ctrl-C kills the plugin at once. No
// plugin process is left.
func TestInterruptReachesEveryCall(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on windows")
	}
	tests := []struct {
		name    string
		signals int
		setup   func(t *testing.T, dir string) (args []string, entry, ready string)
		want    []string
	}{
		// The guest says it loops (ready is a line of stderr then).
		{name: "wasm loops in Load", signals: 1, setup: func(t *testing.T, dir string) ([]string, string, string) {
			model := filepath.Join(dir, "model.bin")
			require.NoError(t, os.WriteFile(model, []byte("loop forever"), 0o644))
			return []string{"run", "--plugin", echoPlugin(t), "--model", model, "--out", "logs"}, "", "stderr:load: looping forever"
		}, want: []string{"stopped by the host: load interrupted"}},
		{name: "subprocess stalls", signals: 1, setup: func(t *testing.T, dir string) ([]string, string, string) {
			plugins, entry := privateEcho(t, dir)
			return []string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--out", "logs", "--scenario", "Server",
				"--set", "echo.fault=stall", "--set", "settings.min_duration=600000", "--set", "settings.target_qps=100"}, entry, "generated_query_count"
		}, want: []string{"interrupted, and the plugin did not close within 1s", "interrupted: the plugin was closed and the logs flushed"}},
		{name: "second interrupt", signals: 2, setup: func(t *testing.T, dir string) ([]string, string, string) {
			plugins, entry := privateEcho(t, dir)
			return []string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--out", "logs", "--scenario", "Server",
				"--set", "echo.fault=stall", "--set", "settings.min_duration=600000", "--set", "settings.target_qps=100"}, entry, "generated_query_count"
		}, want: []string{"second interrupt: stopping the plugin now", "stopped by the host: second interrupt: stopping now"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args, entry, ready := tt.setup(t, dir)
			b := startHost(t, dir, nil, args...)
			if line, ok := strings.CutPrefix(ready, "stderr:"); ok {
				b.waitStderr(t, line)
			} else if ready != "" {
				detail := filepath.Join(dir, "logs", "mlperf_log_detail.txt")
				b.waitFile(t, detail)
				deadline := time.Now().Add(60 * time.Second)
				for !strings.Contains(readFile(t, filepath.Dir(detail), "mlperf_log_detail.txt"), ready) {
					require.True(t, time.Now().Before(deadline), "the run never started issuing")
					time.Sleep(20 * time.Millisecond)
				}
			}
			time.Sleep(500 * time.Millisecond) // in the call, or samples in flight
			sent := time.Now()
			for i := range tt.signals {
				if i > 0 {
					time.Sleep(200 * time.Millisecond)
				}
				b.signal(t, os.Interrupt)
			}
			r := b.wait(t)
			took := time.Since(sent)
			t.Logf("exited %v after the first signal", took.Round(time.Millisecond))
			assert.Equal(t, exitcode.Interrupted, r.code, tail(r.stderr))
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
			// What the host decided is in the messages; the time only
			// shows it waited for none of the deadlines of a minute and
			// more (two seconds for the samples in flight and one for
			// the plugin to close, with room for a loaded machine).
			assert.Less(t, took, 30*time.Second)
			if entry != "" {
				assertNoProcess(t, entry)
			}
		})
	}
}

// TestUserMistakesExitCodes: a user's own mistakes get the table's code
// and a message naming the file and field, never exit 1: every kind of
// invalid manifest (exit 5), a --model that is a directory (exit 3).
func TestUserMistakesExitCodes(t *testing.T) {
	t.Parallel()
	wasmEntry := func(t *testing.T, pdir string) {
		copyFile(t, echoPlugin(t), filepath.Join(pdir, "x.wasm"), 0o644)
	}
	tests := []struct {
		name     string
		manifest string
		entry    func(t *testing.T, pdir string)
		want     string
	}{
		{name: "bad JSON", manifest: `{"name": "x",`, want: "unexpected end of file"},
		{name: "empty", manifest: ``, want: "empty file"},
		{name: "missing entry", manifest: `{"name":"x","version":"1","kind":"wasm","abi_major":1}`, want: "entry"},
		{name: "traversing entry", manifest: `{"name":"x","version":"1","kind":"wasm","abi_major":1,"entry":"../x.wasm"}`, want: "entry"},
		{name: "absolute entry", manifest: `{"name":"x","version":"1","kind":"wasm","abi_major":1,"entry":"/bin/sh"}`, want: "entry"},
		{name: "unknown field", manifest: `{"name":"x","version":"1","kind":"wasm","abi_major":1,"entry":"x.wasm","memory_limit_mb":64}`,
			entry: wasmEntry, want: `"memory_limit_mb"`},
		{name: "wrong kind", manifest: `{"name":"x","version":"1","kind":"native","abi_major":1,"entry":"x.wasm"}`, entry: wasmEntry, want: "kind"},
		{name: "kind and file disagree", manifest: `{"name":"x","version":"1","kind":"process","abi_major":1,"entry":"x.wasm"}`,
			entry: wasmEntry, want: "is a WASM module"},
		{name: "memory limit out of range", manifest: `{"name":"x","version":"1","kind":"wasm","abi_major":1,"entry":"x.wasm","memory_limit_mib":99999}`,
			entry: wasmEntry, want: "memory_limit_mib"},
		{name: "wrong type", manifest: `{"name":"x","version":"1","kind":"wasm","abi_major":"one","entry":"x.wasm"}`, entry: wasmEntry, want: "abi_major"},
		{name: "entry file missing", manifest: `{"name":"x","version":"1","kind":"wasm","abi_major":1,"entry":"gone.wasm"}`, want: "entry"},
		{name: "bad sha256", manifest: `{"name":"x","version":"1","kind":"wasm","abi_major":1,"entry":"x.wasm","sha256":"zz"}`,
			entry: wasmEntry, want: "sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pdir := filepath.Join(dir, "plugins", "x")
			require.NoError(t, os.MkdirAll(pdir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(pdir, "plugin.json"), []byte(tt.manifest), 0o644))
			if tt.entry != nil {
				tt.entry(t, pdir)
			}
			for _, ref := range []string{"x", pdir} { // by name, by path
				r := mlperfHost(t, dir, "run", "--plugin", ref, "--plugin-dirs", filepath.Join(dir, "plugins"), "--out", "logs")
				assert.Equal(t, exitcode.PluginNotFound, r.code, "%s: %s", ref, tail(r.stderr))
				assert.Contains(t, r.stderr, filepath.Join(pdir, "plugin.json"))
				assert.Contains(t, r.stderr, tt.want)
				assert.Contains(t, r.stderr, "hint: fix the plugin.json")
			}
		})
	}

	t.Run("model is a directory", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		r := mlperfHost(t, dir, "run", "--plugin", echoPlugin(t), "--model", dir, "--out", "logs")
		assert.Equal(t, exitcode.Config, r.code, tail(r.stderr))
		assert.Contains(t, r.stderr, "model "+dir+" is not a file (a directory): plugin watecho reads its model as one file")
	})
}

// TestPluginFailsInClose: a plugin that hangs or fails in Close after a
// complete run does not turn the result into a failure: the exit code
// follows the verdict the summary gives (0 for VALID), and a warning names
// the plugin and what it did. A hanging one is stopped at
// host.close_timeout, and no process is left.
func TestPluginFailsInClose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault string
		want  string
	}{
		{fault: "hang", want: `mlperf-host: warning: plugin "echo": close: did not return in time: no answer to Close within 500ms; the host killed it; the result above was measured before the plugin closed and stands`},
		{fault: "fail", want: `mlperf-host: warning: plugin "echo": close: INTERNAL: close: echo: injected Close failure; the result above`},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			plugins, entry := privateEcho(t, dir)
			r := mlperfHost(t, dir, append([]string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--out", "logs",
				"--set", "echo.close_fault=" + tt.fault, "--set", "host.close_timeout=500ms"}, fast(t, dir)...)...)
			assertVerdict(t, r, filepath.Join(dir, "logs"))
			assert.Contains(t, r.stderr, tt.want)
			assertNoProcess(t, entry)
		})
	}
}

// bigDataset writes a compact data set of n samples of size bytes each.
func bigDataset(t *testing.T, dir string, n, size int) string {
	t.Helper()
	samples := make([][]byte, n)
	for i := range samples {
		samples[i] = bytes.Repeat([]byte{byte(i + 1)}, size)
	}
	return writeCompactSet(t, filepath.Join(dir, "big.mlph"), dataset.Spec{DType: dataset.Uint8, Shape: []int{size}}, samples, make([]int, n))
}

// TestLargeOutputBoundedMemory: a plugin answering with a 100 MiB output
// in accuracy mode costs the run a bounded multiple of it (the sample, the
// message it arrives in), not one copy per stage: the accuracy log's hex
// goes to the file in pieces. (Benchmark bert-99: the run itself does not
// score it; scoring reads the log back through encoding/json, which holds
// one entry's hex whole.)
func TestLargeOutputBoundedMemory(t *testing.T) {
	t.Parallel()
	const size = 100 << 20
	dir := t.TempDir()
	plugins, _ := privateEcho(t, dir)
	ds := bigDataset(t, dir, 1, size)
	model := filepath.Join(dir, "model.bin")
	require.NoError(t, os.WriteFile(model, []byte("any"), 0o644))
	r := mlperfHostMeasured(t, dir, "run", "--plugin", "echo", "--plugin-dirs", plugins, "--benchmark", "bert-99", "--model", model,
		"--dataset", ds, "--mode", "accuracy", "--scenario", "Offline", "--out", "logs")
	require.Equal(t, exitcode.OK, r.code, tail(r.stderr))
	acc, err := os.Stat(filepath.Join(dir, "logs", "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	assert.Greater(t, acc.Size(), int64(2*size), "the response is logged, in hex")
	t.Logf("peak memory %d MiB for a %d MiB output", r.maxRSS>>20, size>>20)
	if r.maxRSS > 0 {
		// 437 MiB measured (1.3 GiB when the hex was built whole).
		assert.Less(t, r.maxRSS, int64(7*size))
	}
}

// TestCorruptPayloadRefused: a byte flipped in a compact data set's
// samples (not its header: the size and header checks pass) stops a run
// before it starts, with exit 4 naming the file, as `dataset info` does.
func TestCorruptPayloadRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := identityDataset(t, dir, 8)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[len(b)-100] ^= 0x40 // a sample byte, far from the header
	require.NoError(t, os.WriteFile(p, b, 0o644))
	r := mlperfHost(t, dir, "run", "--plugin", echoPlugin(t), "--dataset", p, "--out", "logs")
	assert.Equal(t, exitcode.Dataset, r.code, tail(r.stderr))
	assert.Contains(t, r.stderr, "data set "+p+": corrupt")
	assert.Contains(t, r.stderr, "payload CRC")
	assert.NoDirExists(t, filepath.Join(dir, "logs"), "nothing ran")
}

// TestKilledHostLeavesNoPlugin: a host killed with SIGKILL in the middle
// of a run leaves no plugin process on Linux (its parent-death signal);
// the detail log said at the start whether the plugin's own helpers die
// with it (its PID namespace: host's TestProcessTreeDiesWithPlugin), as
// docs/host.md says.
func TestKilledHostLeavesNoPlugin(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	dir := t.TempDir()
	plugins, entry := privateEcho(t, dir)
	b := startHost(t, dir, nil, "run", "--plugin", "echo", "--plugin-dirs", plugins, "--out", "logs", "--scenario", "Server",
		"--set", "echo.fault=stall", "--set", "settings.min_duration=600000", "--set", "settings.target_qps=100")
	detail := filepath.Join(dir, "logs", "mlperf_log_detail.txt")
	b.waitFile(t, detail)
	pids, _ := processesOf(entry)
	require.NotEmpty(t, pids, "the plugin runs")
	// The start of the run says how the plugin's own processes are held.
	require.Eventually(t, func() bool {
		d, _ := os.ReadFile(detail)
		return strings.Contains(string(d), `"key": "sut_plugin_process_tree", "value": {"contained":`)
	}, 10*time.Second, 20*time.Millisecond, "the detail log names the plugin's process tree")
	b.kill(t)
	assertNoProcess(t, entry)
}
