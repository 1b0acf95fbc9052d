//go:build linux

package loadgen

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// kernelSleep reports whether the Server issuer sleeps in the kernel
// (nap) rather than on Go timers.
const kernelSleep = true

// prctl options for the calling thread's timer slack.
const (
	prSetTimerSlack = 29
	prGetTimerSlack = 30
)

// issuerSlice is the scheduler time slice the issuer's thread asks for
// during a Server phase (sched_attr.sched_runtime of a SCHED_OTHER thread,
// honored by Linux 6.12 and later, ignored before): a short slice makes
// the scheduler run the thread soon after it wakes rather than after the
// slices of the processes that keep the CPU busy.
const issuerSlice = 100 * time.Microsecond

// schedAttr is the kernel's struct sched_attr (first version, 56 bytes).
type schedAttr struct {
	size                      uint32
	policy                    uint32
	flags                     uint64
	nice                      int32
	priority                  uint32
	runtime, deadline, period uint64
	utilMin, utilMax          uint32
}

// Scheduling policies whose time slice tuneThread may shorten.
const (
	schedOther = 0
	schedBatch = 3
)

// nap sleeps for d in the kernel (nanosleep) on the calling thread; an
// interrupted sleep returns early and the caller checks the time.
//
// A final nap (final: the query is due when it ends) keeps the goroutine's
// P, so that the runtime involves no other thread and the issuer goes on
// the moment the kernel wakes it. The caller bounds it (a stop-the-world
// waits for it). Other naps give the P back to the runtime while they
// sleep, like any blocking system call.
func nap(d time.Duration, final bool) {
	ts := syscall.NsecToTimespec(int64(d))
	if !final {
		_ = syscall.Nanosleep(&ts, nil)
		return
	}
	_, _, _ = syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// holdIssuerThread wires the calling goroutine, the Server issuer, to its
// OS thread for the phase and tunes that thread once (tuneThread); the
// returned func restores the thread and unwires it. Tuning once per phase
// rather than around every nap saves the issuer six system calls per
// query, CPU time that on an oversubscribed core the scheduler counts
// against the issuer's fair share; and the issuer never moves to a thread
// that is not tuned.
func holdIssuerThread() (release func()) {
	runtime.LockOSThread()
	restore := tuneThread()
	return func() {
		restore()
		runtime.UnlockOSThread()
	}
}

// tuneThread sets the calling thread up to be woken on time and returns
// what puts it back (the thread belongs to the Go runtime and will run
// other goroutines once the issuer lets it go): timer slack 1 ns, as by default Linux lets a sleeping
// thread's wake-up slip by up to 50 µs to batch timer interrupts, which
// would be 50 µs of lateness on every query; and, for SCHED_OTHER and
// SCHED_BATCH threads, the short issuerSlice. Failures leave the setting
// as it was.
func tuneThread() (restore func()) {
	slack, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerSlack, 0, 0)
	slackSet := errno == 0 && slack != 1
	if slackSet {
		_, _, errno = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0)
		slackSet = errno == 0
	}
	var attr schedAttr
	sliceSet := false
	if sysSchedGetattr != 0 {
		_, _, errno = syscall.RawSyscall6(sysSchedGetattr, 0, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0, 0, 0)
		if errno == 0 && (attr.policy == schedOther || attr.policy == schedBatch) {
			tuned := attr
			tuned.runtime = uint64(issuerSlice)
			_, _, errno = syscall.RawSyscall(sysSchedSetattr, 0, uintptr(unsafe.Pointer(&tuned)), 0)
			sliceSet = errno == 0
		}
	}
	return func() {
		if sliceSet {
			// Runtime 0 is the kernel's default slice.
			attr.runtime = 0
			_, _, _ = syscall.RawSyscall(sysSchedSetattr, 0, uintptr(unsafe.Pointer(&attr)), 0)
		}
		if slackSet {
			_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, slack, 0)
		}
	}
}
