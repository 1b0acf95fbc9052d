//go:build unix

package host

import "syscall"

// syscallZero probes that a process exists.
const syscallZero = syscall.Signal(0)
