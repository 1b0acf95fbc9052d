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
	free chan *lane

	mu    sync.Mutex
	alive int
	// retired is closed and replaced each time a lane retires, so that
	// holdAll notices lanes it no longer has to wait for.
	retired chan struct{}
	// dead is closed when the last lane retires.
	dead chan struct{}
}

func newLanePool(n int) *lanePool {
	p := &lanePool{free: make(chan *lane, n), alive: n, retired: make(chan struct{}), dead: make(chan struct{})}
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
	p.mu.Lock()
	defer p.mu.Unlock()
	p.alive--
	close(p.retired)
	p.retired = make(chan struct{})
	if p.alive == 0 {
		close(p.dead)
	}
}

// holdAll takes every live lane out of the pool, waiting for in-flight
// batches to finish; the caller puts them back with release. A lane that
// retires while holdAll waits for it (its device failed mid-batch) is no
// longer waited for.
func (p *lanePool) holdAll(cancel <-chan struct{}) ([]*lane, error) {
	var held []*lane
	for {
		p.mu.Lock()
		alive, retired := p.alive, p.retired
		p.mu.Unlock()
		if len(held) >= alive {
			return held, nil
		}
		select {
		case l := <-p.free:
			if l.dev.failed.Load() {
				p.retire()
				continue
			}
			held = append(held, l)
		case <-retired:
		case <-cancel:
			for _, h := range held {
				p.release(h)
			}
			return nil, errCanceled
		}
	}
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
