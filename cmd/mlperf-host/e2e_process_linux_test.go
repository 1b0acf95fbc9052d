package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// rssWrapEnv names the file where the test binary, run as a wrapper,
// writes the peak memory of the command it runs.
const rssWrapEnv = "MLPERF_HOST_TEST_RSS_FILE"

// rssWrapper runs os.Args[1:] and writes its peak resident memory to the
// file rssWrapEnv names, when that variable is set, and returns its exit
// code. A process's peak counts the memory of the process it was forked
// from (Linux accounts the old image's high-water mark at exec), so the
// measured command is started from this small wrapper, not from the test
// process, whose own memory would be counted.
func rssWrapper() (int, bool) {
	path := os.Getenv(rssWrapEnv)
	if path == "" {
		return 0, false
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "rss wrapper:", err)
		return 1, true
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		_ = os.WriteFile(path, []byte(strconv.FormatInt(ru.Maxrss<<10, 10)), 0o644) // Linux reports KiB
	}
	return code, true
}

// mlperfHostMeasured is mlperfHost that also measures the command's peak
// resident memory (result.maxRSS).
func mlperfHostMeasured(t *testing.T, dir string, args ...string) result {
	t.Helper()
	file := filepath.Join(t.TempDir(), "maxrss")
	self, err := os.Executable()
	require.NoError(t, err)
	r := mlperfHostCmd(t, dir, []string{rssWrapEnv + "=" + file}, self, append([]string{binary}, args...)...)
	b, err := os.ReadFile(file)
	require.NoError(t, err, "the wrapper measured the command")
	r.maxRSS, err = strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	require.NoError(t, err)
	return r
}

// processesOf returns the pids of the live processes whose argv[0] is
// path (the host starts plugins with their entry path as argv[0]), and
// whether the OS lets us tell.
func processesOf(path string) ([]int, bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv0, _, _ := bytes.Cut(cmdline, []byte{0})
		if string(argv0) == path && !zombie(e.Name()) {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// zombie reports whether a process has exited and waits to be reaped.
func zombie(pid string) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	// "pid (comm) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z'
}
