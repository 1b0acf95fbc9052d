package aic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// execPool holds the idle exec objects of healthy devices.
type execPool struct {
	idle chan *execObj

	mu   sync.Mutex
	live int
	// dropped is closed and replaced each time an exec object is dropped,
	// so that holdAll notices exec objects it no longer has to wait for.
	dropped chan struct{}
	// empty is closed when no exec object is left.
	empty chan struct{}
}

// newExecPool fills the pool so that consecutive takes rotate over
// devices, then activations, then exec objects.
func newExecPool(execs []*execObj, devices int) *execPool {
	p := &execPool{idle: make(chan *execObj, len(execs)), live: len(execs),
		dropped: make(chan struct{}), empty: make(chan struct{})}
	perDevice := len(execs) / max(devices, 1)
	for i := range perDevice {
		for d := range devices {
			p.idle <- execs[d*perDevice+i]
		}
	}
	if len(execs) == 0 {
		close(p.empty)
	}
	return p
}

// errStopped is take's error when its stop channel closes.
var errStopped = errors.New("stopped")

// take returns an idle exec object of a healthy device.
func (p *execPool) take(stop <-chan struct{}) (*execObj, error) {
	for {
		var e *execObj
		select {
		case e = <-p.idle:
		default:
			select {
			case e = <-p.idle:
			case <-p.empty:
				return nil, ErrNoDevice
			case <-stop:
				return nil, errStopped
			}
		}
		if !e.act.dev.failed.Load() {
			return e, nil
		}
		p.drop()
	}
}

// give returns an exec object, or drops it when its device failed.
func (p *execPool) give(e *execObj) {
	if e.act.dev.failed.Load() {
		p.drop()
		return
	}
	p.idle <- e
}

func (p *execPool) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live--
	close(p.dropped)
	p.dropped = make(chan struct{})
	if p.live == 0 {
		close(p.empty)
	}
}

// holdAll takes every live exec object out of the pool, waiting for
// batches in flight; the caller gives them back. An exec object dropped
// while holdAll waits for it (its device failed mid-batch) is no longer
// waited for.
func (p *execPool) holdAll(stop <-chan struct{}) ([]*execObj, error) {
	var held []*execObj
	for {
		p.mu.Lock()
		live, dropped := p.live, p.dropped
		p.mu.Unlock()
		if len(held) >= live {
			return held, nil
		}
		select {
		case e := <-p.idle:
			if e.act.dev.failed.Load() {
				p.drop()
				continue
			}
			held = append(held, e)
		case <-dropped:
		case <-stop:
			for _, h := range held {
				p.give(h)
			}
			return nil, errStopped
		}
	}
}

// query tracks one Infer call across its batches.
type query struct {
	// guard is read-locked while a batch reads samples or reports, and
	// write-locked by Infer when it stops waiting; gone then keeps late
	// batches away from samples and a Completer no longer valid.
	guard sync.RWMutex
	gone  bool
	c     sdk.Completer
	left  atomic.Int64
	done  chan struct{}
	// warmErr keeps the first error of a warm-up run.
	warmErr atomic.Pointer[error]
}

func newQuery(c sdk.Completer, batches int) *query {
	q := &query{c: c, done: make(chan struct{})}
	q.left.Store(int64(batches))
	return q
}

func (q *query) batchDone() {
	if q.left.Add(-1) == 0 {
		close(q.done)
	}
}

// infer runs q in batches of the compiled batch size, each on an idle exec
// object as one frees up: the last on the caller's goroutine, the others on
// goroutines the program owns. When ctx ends, undispatched samples fail and
// Infer stops waiting for dispatched batches other than its own.
func (p *program) infer(ctx context.Context, sq sdk.Query, c sdk.Completer) error {
	samples := sq.Samples
	if len(samples) == 0 {
		return nil
	}
	size := p.cfg.BatchSize
	batches := (len(samples) + size - 1) / size
	q := newQuery(c, batches)
	var failed error
	for i := range batches {
		lo := i * size
		hi := min(lo+size, len(samples))
		e, err := p.pool.take(ctx.Done())
		if err != nil {
			if errors.Is(err, errStopped) {
				err = ctx.Err()
			}
			failed = fmt.Errorf("qaic: infer: %w", err)
			for _, s := range samples[lo:] {
				c.Fail(s.ID, failed)
			}
			for range batches - i {
				q.batchDone()
			}
			break
		}
		if i == batches-1 {
			p.runBatch(e, q, samples[lo:hi])
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.runBatch(e, q, samples[lo:hi])
		}()
	}
	select {
	case <-q.done:
		return failed
	case <-ctx.Done():
		select {
		case <-q.done:
			return failed
		default:
		}
		q.guard.Lock()
		q.gone = true
		q.guard.Unlock()
		return fmt.Errorf("qaic: infer: %w", ctx.Err())
	}
}

// runBatch executes one batch on e and hands e back.
func (p *program) runBatch(e *execObj, q *query, batch []sdk.Sample) {
	defer p.pool.give(e)
	defer q.batchDone()
	q.guard.RLock()
	if q.gone {
		q.guard.RUnlock()
		return
	}
	ok, want := p.fill(e, q, batch)
	q.guard.RUnlock()
	if !slices.Contains(ok, true) {
		return // every sample failed: nothing to run
	}
	err := p.execute(e)
	q.guard.RLock()
	defer q.guard.RUnlock()
	if q.gone {
		return
	}
	for i, s := range batch {
		switch {
		case !ok[i]:
		case err != nil:
			q.c.Fail(s.ID, fmt.Errorf("qaic: device %d activation %d exec %d: %w", e.act.dev.qid, e.act.index, e.index, err))
		case !want || !s.WantOutput:
			q.c.Complete(s.ID, nil, 0)
		default:
			q.c.Complete(s.ID, e.output(i), 0)
		}
	}
}

// fill copies each sample's inputs into its batch row. It fails samples
// without data of the right size and reports which rows are valid, in a
// slice owned by e.
func (p *program) fill(e *execObj, q *query, batch []sdk.Sample) (ok []bool, want bool) {
	ok = e.rowOK[:len(batch)]
	clear(ok)
	for i, s := range batch {
		data, loaded := p.samples[s.Index]
		if !loaded {
			data = s.Data
		}
		if len(data) != p.layout.inBytes {
			q.c.Fail(s.ID, sampleError(s, data, p.layout.inBytes))
			continue
		}
		for _, in := range e.ins {
			copy(in.data[i*in.row:(i+1)*in.row], data[in.off:in.off+in.row])
		}
		ok[i] = true
		want = want || s.WantOutput
	}
	return ok, want
}

func sampleError(s sdk.Sample, data []byte, want int) error {
	if data == nil {
		return fmt.Errorf("qaic: sample %d (index %d) has no data: it was neither loaded nor sent", s.ID, s.Index)
	}
	return fmt.Errorf("qaic: sample %d (index %d) has %d bytes; the program's inputs take %d per sample",
		s.ID, s.Index, len(data), want)
}

// execute enqueues e on its activation's queue and waits for it. A status
// that means the device is gone fails the device. When the wait times out
// the submission stays outstanding: the device may still use e's buffers.
func (p *program) execute(e *execObj) error {
	dev := e.act.dev
	if dev.failed.Load() {
		return dev.cause.Load()
	}
	err := p.rt.Enqueue(e.act.queue, e.obj)
	if err == nil {
		e.outstanding = true
		err = e.wait(p.rt, p.cfg.WaitTimeout)
	}
	var se *StatusError
	if errors.As(err, &se) && se.Status.deviceFatal() {
		return dev.fail(err)
	}
	return err
}

// output returns row i of the outputs, concatenated in mapping order.
func (e *execObj) output(i int) []byte {
	if len(e.outs) == 1 {
		o := e.outs[0]
		return o.data[i*o.row : (i+1)*o.row]
	}
	n := 0
	for _, o := range e.outs {
		n += copy(e.scratch[n:], o.data[i*o.row:(i+1)*o.row])
	}
	return e.scratch
}

// warmup runs one batch of zeros through every live exec object.
func (p *program) warmup(ctx context.Context) error {
	held, err := p.pool.holdAll(ctx.Done())
	if err != nil {
		return fmt.Errorf("qaic: warm up: %w", ctx.Err())
	}
	if len(held) == 0 {
		return ErrNoDevice
	}
	q := newQuery(nil, len(held))
	for _, e := range held {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.pool.give(e)
			defer q.batchDone()
			for _, in := range e.ins {
				clear(in.data)
			}
			if err := p.execute(e); err != nil {
				err = fmt.Errorf("qaic: warm up device %d: %w", e.act.dev.qid, err)
				q.warmErr.CompareAndSwap(nil, &err)
			}
		}()
	}
	<-q.done
	if err := q.warmErr.Load(); err != nil {
		return *err
	}
	return nil
}

// stop waits for every batch, including ones Infer stopped waiting for,
// then frees everything.
func (p *program) stop() error {
	p.wg.Wait()
	return p.release()
}
