package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// The hostile tests drive the binary with plugins that misbehave (the
// echo plugin's fault modes), bad input, signals and shared directories,
// and check that every failure is fast, bounded and keeps its logs.

// privateEcho copies the echo plugin built for the test binary into
// dir/plugins/echo and returns dir/plugins and the executable: a path no
// other test runs, so that a process left behind is this test's.
func privateEcho(t *testing.T, dir string) (plugins, entry string) {
	t.Helper()
	shared := filepath.Join(installEcho(t), "echo")
	plugins = filepath.Join(dir, "plugins")
	pdir := filepath.Join(plugins, "echo")
	require.NoError(t, os.MkdirAll(pdir, 0o755))
	entry = filepath.Join(pdir, "echo")
	copyFile(t, filepath.Join(shared, "echo"), entry, 0o755)
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

// fileSize returns the size of dir/name, failing when it is missing.
func fileSize(t *testing.T, dir, name string) int64 {
	t.Helper()
	st, err := os.Stat(filepath.Join(dir, name))
	require.NoError(t, err)
	return st.Size()
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
			r := mlperfHost(t, dir, args...)
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
