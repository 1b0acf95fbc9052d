//go:build !wasip1

package sdk

import (
	"fmt"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// sessionRing is a subprocess session's attachment to the host's shared
// rings (ABI v1.1): a poller goroutine consumes the issue ring, the
// outbox's sender produces into the completion ring.
type sessionRing struct {
	issue, completion *abi.Ring
	unmap             func()
	wake, stop        chan struct{}
	done              chan error
}

// ringDrainMax bounds the records one Session.Issue call gets from the
// ring, as issueChunk bounds the host's messages.
const ringDrainMax = 4096

// attachRing maps the ring file the host offers, which must lie in
// shmDir, and checks its header.
func attachRing(req *backendv1.RingAttach, shmDir string) (*sessionRing, error) {
	mem, unmap, err := mapRing(shmDir, req.GetPath(), req.GetSize())
	if err != nil {
		return nil, err
	}
	issue, completion, err := abi.OpenRings(mem)
	if err != nil {
		unmap()
		return nil, fmt.Errorf("ring file %s: %w", req.GetPath(), err)
	}
	return &sessionRing{issue: issue, completion: completion, unmap: unmap,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan error, 1)}, nil
}

// start runs the poller: it hands the issue ring's records to issue while
// holding mu, the lock every other caller of the session holds.
func (r *sessionRing) start(mu sync.Locker, spin time.Duration, issue func([]byte) error) {
	go func() {
		r.done <- r.issue.Consume(abi.RingPoll{Mu: mu, Stop: r.stop, Wake: r.wake, Spin: spin, Max: ringDrainMax}, issue)
	}()
}

// ring wakes the poller: the host rang the doorbell.
func (r *sessionRing) ring() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// halt stops the poller and returns why it had stopped, if it had
// failed.
func (r *sessionRing) halt() error {
	close(r.stop)
	return <-r.done
}
