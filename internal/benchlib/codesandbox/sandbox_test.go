package codesandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain makes the test binary its own launcher (the helper-process
// pattern): started with LaunchArg, it is the sandbox's launcher.
func TestMain(m *testing.M) {
	LaunchIfAsked()
	os.Exit(m.Run())
}

const python = "/usr/bin/python3"

// config is a sandbox of a few seconds and 256 MiB.
func config(t *testing.T) Config {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skipf("the sandbox's tests run Python programs: %v", err)
	}
	self, err := os.Executable()
	require.NoError(t, err)
	// A wall time far beyond the CPU time: the CPU limit, not the
	// clock, stops a busy program on a loaded machine too.
	return Config{Launcher: self, WallTime: 5 * time.Minute, CPUTime: time.Second,
		Memory: 256 << 20, FileSize: 1 << 20, Output: 1 << 16, Dir: t.TempDir()}
}

// runPy runs a Python program confined by cfg.
func runPy(t *testing.T, cfg Config, prog string) Result {
	t.Helper()
	res, err := Run(context.Background(), cfg, map[string][]byte{"main.py": []byte(prog)}, []string{"python3", "main.py"}, []byte("7\n"))
	require.NoError(t, err)
	return res
}

// TestRunsProgram: a program reads its stdin and its files and writes
// its stdout and its directory.
func TestRunsProgram(t *testing.T) {
	t.Parallel()
	res := runPy(t, config(t), `import os
n = int(input())
open("out.txt", "w").write("x" * n)
print(n * 6, open("out.txt").read(), os.getcwd() == os.environ["HOME"])`)
	assert.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	assert.Equal(t, "42 xxxxxxx True\n", string(res.Stdout))
	assert.False(t, res.TimedOut)
	t.Logf("isolated: %v", res.Isolated)
}

// TestContained: what a hostile program tries is stopped by a limit, and
// the sandbox reports how it ended.
func TestContained(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	tests := []struct {
		name  string
		prog  string
		check func(t *testing.T, res Result)
	}{
		{name: "infinite loop", prog: "while True: pass", check: func(t *testing.T, res Result) {
			// RLIMIT_CPU's SIGXCPU (or SIGKILL at the hard limit), well
			// before the wall time.
			assert.Equal(t, -1, res.ExitCode)
			assert.Contains(t, []string{"CPU time limit exceeded", "killed"}, res.Signal)
		}},
		{name: "memory bomb", prog: "x = bytearray(1 << 30)\nprint('allocated')", check: func(t *testing.T, res Result) {
			assert.NotEqual(t, 0, res.ExitCode)
			assert.Contains(t, string(res.Stderr), "MemoryError")
			assert.NotContains(t, string(res.Stdout), "allocated")
		}},
		{name: "fork bomb", prog: "import os\nwhile True: os.fork()", check: func(t *testing.T, res Result) {
			assert.NotEqual(t, 0, res.ExitCode)
			assert.Contains(t, string(res.Stderr), "BlockingIOError")
		}},
		{name: "subprocess", prog: "import subprocess\nsubprocess.run(['true'])\nprint('ran')", check: func(t *testing.T, res Result) {
			assert.NotEqual(t, 0, res.ExitCode)
			assert.NotContains(t, string(res.Stdout), "ran")
		}},
		{name: "write outside its directory", prog: fmt.Sprintf("open(%q, 'w').write('escaped')", outside), check: func(t *testing.T, res Result) {
			if !res.Isolated {
				t.Skip("without a mount namespace, the file system is the user's")
			}
			assert.NotEqual(t, 0, res.ExitCode)
			_, err := os.Stat(outside)
			assert.ErrorIs(t, err, os.ErrNotExist)
		}},
		{name: "write to the host's directories", prog: "open('/etc/escaped', 'w').write('x')", check: func(t *testing.T, res Result) {
			if !res.Isolated {
				t.Skip("without a mount namespace, the file system is the user's")
			}
			assert.NotEqual(t, 0, res.ExitCode)
			assert.Contains(t, string(res.Stderr), "Read-only file system")
			_, err := os.Stat("/etc/escaped")
			assert.ErrorIs(t, err, os.ErrNotExist)
		}},
		{name: "large file", prog: "open('big', 'wb').write(b'x' * (4 << 20))", check: func(t *testing.T, res Result) {
			// RLIMIT_FSIZE: SIGXFSZ, or EFBIG where it is ignored.
			assert.NotEqual(t, 0, res.ExitCode)
		}},
		{name: "network", prog: "import socket\ns = socket.create_connection(('1.1.1.1', 53), timeout=3)\nprint('connected')", check: func(t *testing.T, res Result) {
			if !res.Isolated {
				t.Skip("without a network namespace, the network is the host's")
			}
			assert.NotEqual(t, 0, res.ExitCode)
			assert.Contains(t, string(res.Stderr), "Network is unreachable")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runPy(t, config(t), tt.prog)
			assert.False(t, res.TimedOut, "stderr: %s", res.Stderr)
			tt.check(t, res)
		})
	}
}

// TestWallTime: a program that sleeps (no CPU time) is killed at the wall
// time, with the processes it started.
func TestWallTime(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.WallTime = 500 * time.Millisecond
	res := runPy(t, cfg, "import time\ntime.sleep(60)")
	assert.True(t, res.TimedOut)
	assert.Equal(t, "killed", res.Signal)
}

// TestLauncherFails: a command that does not exist is the launcher's
// error, not a result.
func TestLauncherFails(t *testing.T) {
	t.Parallel()
	_, err := Run(context.Background(), config(t), nil, []string{"no-such-command"}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "launcher")
}

// TestConfigValidate names each bad field.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	err := Config{Threads: -1}.Validate()
	require.Error(t, err)
	for _, want := range []string{"launcher", "wall time", "CPU time", "memory", "output", "threads"} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = Run(context.Background(), Config{}, nil, []string{"true"}, nil)
	assert.Error(t, err)
}

// TestNamespacesHere says whether this machine gives the sandbox its
// namespaces (the tests above check the rest either way).
func TestNamespacesHere(t *testing.T) {
	t.Parallel()
	res := runPy(t, config(t), "import os\nprint(os.getpid(), sorted(os.listdir('/')))")
	require.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	if res.Isolated {
		// PID 1 of its namespace, in a root of its own.
		assert.True(t, strings.HasPrefix(string(res.Stdout), "1 "), "%s", res.Stdout)
		assert.Contains(t, string(res.Stdout), "'work'")
		assert.NotContains(t, string(res.Stdout), "'home'")
	}
	if out, err := exec.Command("unshare", "-rn", "true").CombinedOutput(); err == nil {
		assert.True(t, res.Isolated, "unshare makes user namespaces here, the sandbox did not")
	} else {
		t.Logf("no user namespaces here (%s): the rlimits alone hold", strings.TrimSpace(string(out)))
	}
}

// TestWithoutNamespaces: where the kernel refuses the namespaces, the
// rlimits and the seccomp filter still stop a busy loop, a memory bomb
// and a fork bomb.
func TestWithoutNamespaces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, prog, stderr string
	}{
		{name: "infinite loop", prog: "while True: pass"},
		{name: "memory bomb", prog: "x = bytearray(1 << 30)", stderr: "MemoryError"},
		{name: "fork bomb", prog: "import os\nwhile True: os.fork()", stderr: "BlockingIOError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := config(t)
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "main.py"), []byte(tt.prog), 0o644))
			lim := limits{CPUSeconds: 1, Memory: uint64(cfg.Memory), FileSize: uint64(cfg.FileSize), Dir: dir}
			res, err := run(context.Background(), cfg, lim, false, []string{"python3", "main.py"}, nil)
			require.NoError(t, err)
			assert.False(t, res.Isolated)
			assert.False(t, res.TimedOut)
			assert.NotEqual(t, 0, res.ExitCode)
			assert.Contains(t, string(res.Stderr), tt.stderr)
		})
	}
}

// TestThreads: a program may start threads (clone3 refused as unknown,
// the C library falls back to clone), not processes.
func TestThreads(t *testing.T) {
	t.Parallel()
	res := runPy(t, config(t), `import threading
out = []
ts = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]
for x in ts: x.start()
for x in ts: x.join()
print(sorted(out))`)
	assert.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	assert.Equal(t, "[0, 1, 2, 3]\n", string(res.Stdout))
}

// TestProcesses: with Processes, a trusted program (a compiler driver)
// may start processes.
func TestProcesses(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.Processes, cfg.Threads = true, 16
	res := runPy(t, cfg, "import subprocess\nsubprocess.run(['true'], check=True)\nprint('ran')")
	assert.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	assert.Equal(t, "ran\n", string(res.Stdout))
}

// TestWorkdir: commands run one after another in a Workdir see what the
// ones before left there; Close removes it, twice without error.
func TestWorkdir(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	w, err := NewWorkdir(cfg.Dir, map[string][]byte{"in.txt": []byte("6")})
	require.NoError(t, err)
	res, err := w.Run(context.Background(), cfg, []string{"python3", "-c", "open('out.txt', 'w').write(str(int(open('in.txt').read()) * 7))"}, nil)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	res, err = w.Run(context.Background(), cfg, []string{"python3", "-c", "print(open('out.txt').read())"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "42\n", string(res.Stdout), "%s", res.Stderr)
	require.NoError(t, w.Close())
	require.NoError(t, w.Close())
	_, err = os.Stat(w.dir)
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = NewWorkdir(cfg.Dir, map[string][]byte{"../x": nil})
	require.ErrorContains(t, err, "outside the directory")
	entries, err := os.ReadDir(cfg.Dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a refused Workdir leaves nothing")
}

// TestMemoryBelowTheLauncher: an address-space limit far below what the
// launcher (a Go program) maps itself binds the command, not the
// launcher, which sets it last and allocates nothing after.
func TestMemoryBelowTheLauncher(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.Memory = 8 << 20
	for range 20 {
		res, err := Run(context.Background(), cfg, nil, []string{"true"}, nil)
		require.NoError(t, err)
		require.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	}
}
