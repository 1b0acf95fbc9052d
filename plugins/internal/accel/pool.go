package accel

import (
	"errors"
	"sync"
)

// Slot is one execution slot: the resources that run one batch at a time
// (a CUDA stream with its context and buffers, an exec object).
type Slot interface {
	// Failed reports whether the slot's device failed: the pool then
	// retires the slot instead of handing it out again.
	Failed() bool
	// Run executes b and reports each of its samples through b. A batch
	// without samples is a warm-up run, whose error goes to
	// [Batch.SetErr]. Run must not return the slot to the pool.
	Run(b *Batch)
}

// errCanceled is what Pool returns when its cancel channel closes.
var errCanceled = errors.New("canceled")

// Pool hands idle slots out. A slot is in the pool exactly when it is idle
// and its device has not failed; slots of a failed device are retired
// instead of returned.
type Pool[S Slot] struct {
	free chan S
	// noDevice is Take's error once every slot is retired.
	noDevice error

	mu    sync.Mutex
	alive int
	// retired is closed and replaced each time a slot retires, so that
	// HoldAll notices slots it no longer has to wait for.
	retired chan struct{}
	// dead is closed when the last slot retires.
	dead chan struct{}
}

// NewPool returns a pool of slots, listed device by device with the same
// number per device. Consecutive takes rotate over devices first, so that
// a light load spreads across them. noDevice is the error once every slot
// is retired.
func NewPool[S Slot](slots []S, devices int, noDevice error) *Pool[S] {
	p := &Pool[S]{free: make(chan S, len(slots)), noDevice: noDevice, alive: len(slots),
		retired: make(chan struct{}), dead: make(chan struct{})}
	perDevice := len(slots) / max(devices, 1)
	for i := range perDevice {
		for d := range devices {
			p.free <- slots[d*perDevice+i]
		}
	}
	if len(slots) == 0 {
		close(p.dead)
	}
	return p
}

// Take returns an idle slot of a healthy device. It fails with the pool's
// no-device error when every slot is retired and with errCanceled when
// cancel is closed first (a nil cancel never fires).
func (p *Pool[S]) Take(cancel <-chan struct{}) (S, error) {
	for {
		var s S
		select {
		case s = <-p.free:
		default:
			select {
			case s = <-p.free:
			case <-cancel:
				return s, errCanceled
			case <-p.dead:
				return s, p.noDevice
			}
		}
		if !s.Failed() {
			return s, nil
		}
		p.retire()
	}
}

// Give returns an idle slot, or retires it if its device failed.
func (p *Pool[S]) Give(s S) {
	if s.Failed() {
		p.retire()
		return
	}
	p.free <- s
}

func (p *Pool[S]) retire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.alive--
	close(p.retired)
	p.retired = make(chan struct{})
	if p.alive == 0 {
		close(p.dead)
	}
}

// HoldAll takes every live slot out of the pool, waiting for in-flight
// batches to finish; the caller puts them back with Give. A slot that
// retires while HoldAll waits for it (its device failed mid-batch) is no
// longer waited for. When cancel closes first, the slots taken go back and
// HoldAll fails with errCanceled.
func (p *Pool[S]) HoldAll(cancel <-chan struct{}) ([]S, error) {
	var held []S
	for {
		p.mu.Lock()
		alive, retired := p.alive, p.retired
		p.mu.Unlock()
		if len(held) >= alive {
			return held, nil
		}
		select {
		case s := <-p.free:
			if s.Failed() {
				p.retire()
				continue
			}
			held = append(held, s)
		case <-retired:
		case <-cancel:
			for _, h := range held {
				p.Give(h)
			}
			return nil, errCanceled
		}
	}
}
