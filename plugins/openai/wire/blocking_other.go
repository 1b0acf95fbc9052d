//go:build !linux

package wire

import (
	"errors"
	"net"
	"time"
)

// blockingSupported says whether [Target.BlockingReads] is honoured.
const blockingSupported = false

// blocking is a Linux socket in blocking mode; elsewhere never made.
type blocking struct{}

func newBlocking(*net.TCPConn) (*blocking, error) {
	return nil, errors.ErrUnsupported
}

func (b *blocking) setTimeouts(_, _ time.Duration) error { return errors.ErrUnsupported }
func (b *blocking) Read([]byte) (int, error)             { return 0, errors.ErrUnsupported }
func (b *blocking) Write([]byte) (int, error)            { return 0, errors.ErrUnsupported }
func (b *blocking) Close() error                         { return nil }
