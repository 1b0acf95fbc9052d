//go:build unix

package loadgen

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) this process has used,
// its busy children excluded.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
