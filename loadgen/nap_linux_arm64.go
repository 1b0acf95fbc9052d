package loadgen

import "syscall"

// System call numbers of sched_setattr and sched_getattr.
const (
	sysSchedSetattr = syscall.SYS_SCHED_SETATTR
	sysSchedGetattr = syscall.SYS_SCHED_GETATTR
)
