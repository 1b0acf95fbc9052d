//go:build unix

package wire

import "syscall"

// rawSupported says whether a TCP body is read by [Conn.readBodyRaw].
const rawSupported = true

// readFD is one read(2) of fd, retried on EINTR; errWouldBlock when the
// socket is empty.
func readFD(fd uintptr, p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), p)
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

// writeFD is one write(2) of p to fd, retried on EINTR; errWouldBlock
// when the socket's buffer is full.
func writeFD(fd uintptr, p []byte) (int, error) {
	for {
		n, err := syscall.Write(int(fd), p)
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
