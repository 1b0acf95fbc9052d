//go:build linux

package host

import "syscall"

// setDeathSignal makes Linux send SIGKILL to the plugin when the thread
// that started it exits, so a killed host leaves no plugin holding a GPU.
// (Go keeps that thread alive for the process's life unless a goroutine
// locked to it exits, which the host never does.)
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
