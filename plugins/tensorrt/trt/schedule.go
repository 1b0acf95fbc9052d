package trt

import (
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// batch is a run of consecutive samples of one Infer call that one lane
// executes as a single enqueue. A batch without samples is a warm-up run.
type batch struct {
	call    *call
	samples []sdk.Sample
}

// call tracks the batches of one Infer (or Warmup) call.
type call struct {
	// mu is read-locked by lanes while they read the call's sample data
	// and report completions, and write-locked by Infer when it gives up
	// early (abandoned): after that no lane touches the call's samples or
	// Completer, which are only valid until Infer returns.
	mu        sync.RWMutex
	abandoned bool
	c         sdk.Completer

	pending  atomic.Int32
	finished chan struct{}

	errMu sync.Mutex
	err   error
}

func newCall(c sdk.Completer, batches int) *call {
	cl := &call{c: c, finished: make(chan struct{})}
	cl.pending.Store(int32(batches))
	if batches == 0 {
		close(cl.finished)
	}
	return cl
}

// finish marks one batch done.
func (cl *call) finish() {
	if cl.pending.Add(-1) == 0 {
		close(cl.finished)
	}
}

// setErr keeps the first error of a warm-up.
func (cl *call) setErr(err error) {
	cl.errMu.Lock()
	if cl.err == nil {
		cl.err = err
	}
	cl.errMu.Unlock()
}

// abandon stops lanes from touching the call any further.
func (cl *call) abandon() {
	cl.mu.Lock()
	cl.abandoned = true
	cl.mu.Unlock()
}

// lanePool hands idle lanes to Infer. A lane is in the pool exactly when
// it is idle and its device has not failed; lanes of a failed device are
// retired instead of returned.
type lanePool struct {
	free  chan *lane
	alive atomic.Int32
	dead  chan struct{}
	once  sync.Once
}

func newLanePool(n int) *lanePool {
	p := &lanePool{free: make(chan *lane, n), dead: make(chan struct{})}
	p.alive.Store(int32(n))
	if n == 0 {
		close(p.dead)
	}
	return p
}

// acquire returns an idle lane of a healthy device. It fails with
// ErrNoDevice when every lane is retired and with errCanceled when cancel
// is closed first (a nil cancel never fires).
func (p *lanePool) acquire(cancel <-chan struct{}) (*lane, error) {
	for {
		var l *lane
		select {
		case l = <-p.free:
		default:
			select {
			case l = <-p.free:
			case <-cancel:
				return nil, errCanceled
			case <-p.dead:
				return nil, ErrNoDevice
			}
		}
		if !l.dev.failed.Load() {
			return l, nil
		}
		p.retire()
	}
}

// release returns an idle lane, or retires it if its device failed.
func (p *lanePool) release(l *lane) {
	if l.dev.failed.Load() {
		p.retire()
		return
	}
	p.free <- l
}

func (p *lanePool) retire() {
	if p.alive.Add(-1) == 0 {
		p.once.Do(func() { close(p.dead) })
	}
}

// holdAll takes every live lane out of the pool, waiting for in-flight
// batches to finish; the caller puts them back with release.
func (p *lanePool) holdAll(cancel <-chan struct{}) ([]*lane, error) {
	var held []*lane
	for int32(len(held)) < p.alive.Load() {
		l, err := p.acquire(cancel)
		if err == ErrNoDevice {
			break
		}
		if err != nil {
			for _, h := range held {
				p.release(h)
			}
			return nil, err
		}
		held = append(held, l)
	}
	return held, nil
}

// splitBatches returns how many batches n samples take with at most max
// samples each, and the size of batch i when sizes differ by at most one.
func splitBatches(n, maxSize int) int { return (n + maxSize - 1) / maxSize }

func batchBounds(n, batches, i int) (start, end int) {
	base, extra := n/batches, n%batches
	start = i*base + min(i, extra)
	end = start + base
	if i < extra {
		end++
	}
	return start, end
}
