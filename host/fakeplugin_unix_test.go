//go:build unix

package host

import (
	"os"
	"os/exec"
	"syscall"
)

// startOrphan starts a helper that leaves the plugin's process group (its
// own session) but inherits its stdout and stderr.
func startOrphan() {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fakePluginEnv+"="+fakeSleeper)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	_ = cmd.Start()
}
