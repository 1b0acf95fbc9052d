package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// maxRSS is a finished process's peak resident memory in bytes (Linux
// reports KiB).
func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return ru.Maxrss << 10
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
