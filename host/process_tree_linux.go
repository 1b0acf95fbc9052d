//go:build linux

package host

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// treeWays are the ways Linux may contain a plugin's process tree, tried
// in order: a PID namespace (root, or anyone with CAP_SYS_ADMIN, keeping
// every privilege), then a PID namespace inside a user namespace of its
// own (any user where unprivileged user namespaces are allowed; the
// plugin keeps its user and group ids, mapped onto themselves, and its
// supplementary groups, and has no privilege the user lacks). The plugin
// is the namespace's init: the kernel kills every other process in it
// when the plugin exits, and the plugin's parent-death signal makes it
// exit with the host.
func treeWays() []treeWay {
	if os.Geteuid() == 0 {
		return []treeWay{pidNamespace, userPIDNamespace}
	}
	return []treeWay{userPIDNamespace}
}

var (
	pidNamespace = treeWay{name: "pid namespace", apply: func(c *exec.Cmd) {
		c.SysProcAttr.Cloneflags |= syscall.CLONE_NEWPID
	}}
	userPIDNamespace = treeWay{name: "pid namespace in a user namespace", apply: func(c *exec.Cmd) {
		uid, gid := os.Getuid(), os.Getgid()
		a := c.SysProcAttr
		a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}}
)

// namespaceRefused reports whether a start failed because the system
// would not create the namespace (no privilege, user namespaces off or
// at their limit, a seccomp filter, a kernel without them), as opposed to
// the program failing to start.
func namespaceRefused(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EPERM, syscall.EACCES, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.ENOSYS:
		return true
	}
	return false
}
