package wire

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// blockingSupported says whether [Target.BlockingReads] is honoured.
const blockingSupported = true

// blocking is a TCP socket out of the network poller, in blocking mode:
// a read is one read(2) that sleeps in the kernel until bytes arrive,
// not a read, a read that finds nothing and a wake from the poller. The
// read's bound is the socket's SO_RCVTIMEO, set only when it changes.
type blocking struct {
	f    *os.File
	rc   syscall.RawConn
	rcv  time.Duration // the SO_RCVTIMEO set
	snd  time.Duration // the SO_SNDTIMEO set
	once sync.Once
}

// newBlocking takes over nc's socket: a duplicate descriptor in
// blocking mode, nc closed (which takes its own descriptor out of the
// poller and leaves the connection open).
func newBlocking(nc *net.TCPConn) (*blocking, error) {
	rc, err := nc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := rc.Control(func(s uintptr) { fd, dupErr = dupCloexec(int(s)) }); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, fmt.Errorf("blocking reads: %w", dupErr)
	}
	nc.Close()
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("blocking reads: %w", err)
	}
	f := os.NewFile(uintptr(fd), "tcp") // blocking: not put in the poller
	b := &blocking{f: f}
	if b.rc, err = f.SyscallConn(); err != nil {
		f.Close()
		return nil, err
	}
	return b, nil
}

func dupCloexec(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, err := syscall.Dup(fd)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(nfd)
	return nfd, nil
}

// setTimeouts bounds each read to read and each write to write (0:
// none), a system call only for a bound that differs from the one set.
func (b *blocking) setTimeouts(read, write time.Duration) error {
	if err := b.bound(syscall.SO_RCVTIMEO, &b.rcv, read); err != nil {
		return err
	}
	return b.bound(syscall.SO_SNDTIMEO, &b.snd, write)
}

func (b *blocking) bound(opt int, set *time.Duration, d time.Duration) error {
	if d == *set {
		return nil
	}
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	var err error
	if cerr := b.rc.Control(func(fd uintptr) {
		err = syscall.SetsockoptTimeval(int(fd), syscall.SOL_SOCKET, opt, &tv)
	}); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("set a socket timeout: %w", err)
	}
	*set = d
	return nil
}

// Read reads once; a read that ran out of its timeout returns
// os.ErrDeadlineExceeded, one at the end of the stream io.EOF.
func (b *blocking) Read(p []byte) (int, error) {
	n, err := b.f.Read(p)
	if err != nil && errors.Is(err, syscall.EAGAIN) {
		return n, os.ErrDeadlineExceeded
	}
	return n, err
}

func (b *blocking) Write(p []byte) (int, error) {
	n, err := b.f.Write(p)
	if err != nil && errors.Is(err, syscall.EAGAIN) {
		return n, os.ErrDeadlineExceeded
	}
	return n, err
}

// Close shuts the socket down, which wakes a read sleeping in it, and
// closes it; again is a no-op.
func (b *blocking) Close() error {
	var err error
	b.once.Do(func() {
		_ = b.rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
		err = b.f.Close()
	})
	return err
}
