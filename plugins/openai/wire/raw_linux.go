//go:build linux && !race

package wire

import (
	"syscall"
	"unsafe"
)

// sysRead and sysWrite are read(2) and write(2) on a socket that never
// blocks (the network poller's, O_NONBLOCK), made without telling the
// scheduler that a system call begins and ends, as the poller makes its
// own epoll calls. A blocking call must tell it, so that its P can be
// handed to another thread; these return at once. Telling it costs more
// than the bookkeeping: when every P was idle, as between the frames of
// a stream, each call's entry wakes the runtime's monitor thread, which
// then ticks and sleeps again (about a fifth of a streamed request's
// CPU, measured in BENCHMARKS.md). The race detector's builds use
// package syscall's calls, which tell the detector that what one
// goroutine wrote before a write(2) happens before what another does
// after a read(2), as a test's server in the same process relies on.
func sysRead(fd uintptr, p []byte) (int, error) {
	return rawIO(syscall.SYS_READ, fd, p)
}

func sysWrite(fd uintptr, p []byte) (int, error) {
	return rawIO(syscall.SYS_WRITE, fd, p)
}

func rawIO(trap, fd uintptr, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
