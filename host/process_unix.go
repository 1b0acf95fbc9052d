//go:build unix

package host

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcAttrs puts the plugin in its own process group, so that killing
// the group also kills the helpers it started, and asks Linux to kill it
// when the host dies (see process_linux.go).
func setProcAttrs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// processAlive reports whether pid exists (for reattached plugins).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// sharedArenaSupported, sharedRingSupported: plugins on unix map the arena
// and the rings with mmap.
const (
	sharedArenaSupported = true
	sharedRingSupported  = true
)

// mapRingFile maps a ring file read-write, shared with the plugin.
func mapRingFile(f *os.File, size int) ([]byte, func() error, error) {
	mem, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return mem, func() error { return syscall.Munmap(mem) }, nil
}
