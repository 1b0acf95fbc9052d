//go:build unix

package wire

import "syscall"

// rawSupported says whether a TCP exchange is run by [Conn.doRaw].
const rawSupported = true

// readFD is one read(2) of fd, retried on EINTR; errWouldBlock when the
// socket is empty.
func readFD(fd uintptr, p []byte) (int, error) { return nonBlocking(sysRead, fd, p) }

// writeFD is one write(2) of p to fd, retried on EINTR; errWouldBlock
// when the socket's buffer is full.
func writeFD(fd uintptr, p []byte) (int, error) { return nonBlocking(sysWrite, fd, p) }

func nonBlocking(op func(uintptr, []byte) (int, error), fd uintptr, p []byte) (int, error) {
	for {
		n, err := op(fd, p)
		switch err {
		case nil:
			return n, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, errWouldBlock
		}
		return 0, err
	}
}
