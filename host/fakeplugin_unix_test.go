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

// startHelper starts a helper in a session of its own, out of the reach
// of the plugin's process group, that would outlive the plugin by a
// minute; it inherits fakeHelperEnv.
func startHelper() {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fakePluginEnv+"="+fakeLongSleeper)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	_ = cmd.Start()
}
