//go:build !unix

package host

import "os/exec"

func setProcAttrs(*exec.Cmd) {}

func killGroup(int) {}

func processAlive(int) bool { return true }

const sharedArenaSupported = false
