//go:build linux

package accel

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Pin restricts the calling OS thread to cpus and returns the function
// that gives it back its previous CPUs. The caller has locked its
// goroutine to the thread (runtime.LockOSThread) and calls restore before
// unlocking it, so that no other goroutine runs confined there.
func Pin(cpus []int) (restore func(), err error) {
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("pin the thread to CPUs %v: %w", cpus, err)
	}
	return func() { _ = unix.SchedSetaffinity(0, &old) }, nil
}
