package aic

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ebitengine/purego"
)

// The runtime reports a completed submission by calling a C function
// pointer with the user data it was given. The plugin makes one such
// function for the whole process (purego callbacks are never freed and
// limited in number) and passes a key as the user data, never a Go
// pointer; the key finds the exec object's channel in completions.
var (
	callbackOnce sync.Once
	callbackPtr  uintptr
	completions  sync.Map // key (uintptr) → chan struct{}
	nextKey      atomic.Uintptr
)

// completionCallback is the C function the runtime calls: void
// cb(QAicEvent *event, QAicEventCompletionType type, void *user). It only
// wakes the exec object's waiter; that waiter asks the runtime for the
// submission's status, so the completion type's value does not matter.
func completionCallback(_, _, user uintptr) {
	if ch, ok := completions.Load(user); ok {
		select {
		case ch.(chan struct{}) <- struct{}{}:
		default:
		}
	}
}

// callback returns the C function pointer of completionCallback.
func callback() uintptr {
	callbackOnce.Do(func() { callbackPtr = purego.NewCallback(completionCallback) })
	return callbackPtr
}

// listen creates e's event and registers its channel; release undoes it.
func (p *program) listen(e *execObj) error {
	ev, err := p.rt.CreateEvent(p.ctx, p.cfg.EventType)
	if err != nil {
		return fmt.Errorf("%w (event_type %d is taken for QAIC_EVENT_DEVICE_COMPLETE: set it to your SDK's value, "+
			"or use completion=wait)", err, p.cfg.EventType)
	}
	e.event = ev
	e.done = make(chan struct{}, 1)
	e.key = nextKey.Add(1)
	completions.Store(e.key, e.done)
	return nil
}

// unlisten releases e's event and forgets its channel.
func (p *program) unlisten(e *execObj) error {
	if e.event == 0 {
		return nil
	}
	completions.Delete(e.key)
	err := p.rt.ReleaseEvent(e.event)
	e.event = 0
	return err
}

// submitWithCallback enqueues e with its event armed and waits, asleep on
// a channel rather than in a blocked OS thread, for the runtime's
// callback; then it asks the runtime for the submission's status, which
// is there at once. Past the wait timeout the submission stays
// outstanding, as after a timed-out wait.
func (p *program) submitWithCallback(e *execObj) error {
	select {
	case <-e.done: // a late callback of an earlier, timed-out submission
	default:
	}
	if err := p.rt.Arm(e.event, callback(), e.key); err != nil {
		return err
	}
	if err := p.rt.Enqueue(e.act.queue, e.obj, e.event); err != nil {
		return err
	}
	e.outstanding = true
	timer := time.NewTimer(p.cfg.WaitTimeout)
	defer timer.Stop()
	select {
	case <-e.done:
		return e.wait(p.rt, time.Second)
	case <-timer.C:
		return &StatusError{Op: "qaicEventAddCallback", Status: StatusTimedOut}
	}
}

// errNoEvents is Load's error for completion=callback on a runtime
// without the event calls.
var errNoEvents = errors.New("completion=callback: this libQAic lacks qaicCreateEvent or the event callback calls; " +
	"use completion=wait")
