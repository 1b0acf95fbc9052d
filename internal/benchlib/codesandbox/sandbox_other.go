//go:build !linux

package codesandbox

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

var errLinuxOnly = errors.New("the code sandbox needs Linux")

func sysProcAttr(bool) *syscall.SysProcAttr { return nil }
func namespacesRefused(error) bool          { return false }
func killAll(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
func exitOf(st *os.ProcessState) (int, string) {
	if st == nil {
		return -1, ""
	}
	return st.ExitCode(), ""
}

// Main is the launcher; it needs Linux's rlimits and namespaces.
func Main([]string) error { return errLinuxOnly }
