package accel

import (
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// call tracks the batches of one Infer (or Warmup) call.
type call struct {
	// mu is read-locked by slots while they read the call's sample data
	// and report completions, and write-locked by Infer when it gives up
	// early (abandoned): after that no slot touches the call's samples or
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

// abandon stops slots from touching the call any further.
func (cl *call) abandon() {
	cl.mu.Lock()
	cl.abandoned = true
	cl.mu.Unlock()
}

// Batch is a run of consecutive samples of one Infer call that one slot
// executes at once. A batch without samples is a warm-up run.
type Batch struct {
	call *call
	// Samples are the batch's samples, valid between Enter and Leave.
	Samples []sdk.Sample
}

// Warmup reports whether b is a warm-up run.
func (b *Batch) Warmup() bool { return b.Samples == nil }

// Enter starts a stretch in which the slot reads the batch's samples or
// reports them. It returns false when Infer already gave up on the call:
// the samples and Completer are no longer valid, and the slot must skip
// them. After a true Enter the slot calls Leave.
func (b *Batch) Enter() bool {
	b.call.mu.RLock()
	if b.call.abandoned {
		b.call.mu.RUnlock()
		return false
	}
	return true
}

// Leave ends what Enter started.
func (b *Batch) Leave() { b.call.mu.RUnlock() }

// Complete reports sample id done with output data; call it between Enter
// and Leave.
func (b *Batch) Complete(id uint64, data []byte) { b.call.c.Complete(id, data, 0) }

// Fail reports sample id failed; call it between Enter and Leave.
func (b *Batch) Fail(id uint64, err error) { b.call.c.Fail(id, err) }

// SetErr keeps the first error of a warm-up run.
func (b *Batch) SetErr(err error) {
	cl := b.call
	cl.errMu.Lock()
	if cl.err == nil {
		cl.err = err
	}
	cl.errMu.Unlock()
}
