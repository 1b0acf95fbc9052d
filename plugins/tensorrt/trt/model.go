package trt

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// device is one CUDA device in use: its engines and lanes, its slot in
// per-device tables, and whether it failed.
type device struct {
	ordinal int
	slot    int
	engines []handle
	lanes   []*lane
	failed  atomic.Bool
	failure atomic.Pointer[DeviceError]
	// deferred holds device allocations whose free waits until the
	// device's streams have drained: a batch that timed out may still have
	// copies queued that read them, and cudaFree would block on it.
	deferred []uintptr
	// wedged is set at release when a stream did not drain in time: then
	// nothing on the device is freed or destroyed.
	wedged bool
}

// fail marks the device failed and returns the error to report.
func (d *device) fail(err error) error {
	var de *DeviceError
	if errors.As(err, &de) {
		return de
	}
	de = &DeviceError{Device: d.ordinal, Err: err}
	if d.failure.CompareAndSwap(nil, de) {
		d.failed.Store(true)
		return de
	}
	return d.failure.Load()
}

// idle reports whether every stream of the device has run all its queued
// work. Only a failed device can have busy streams while its lanes are out
// of use: a batch that timed out leaves its work queued.
func (d *device) idle(cuda cudaAPI) bool {
	for _, l := range d.lanes {
		if done, _ := cuda.StreamQuery(l.st); !done {
			return false
		}
	}
	return true
}

// settle waits until every stream of the device has run its queued work,
// or until deadline. The caller's OS thread has the device current.
func (d *device) settle(deadline time.Time) error {
	for _, l := range d.lanes {
		if err := l.quiesce(deadline); err != nil {
			return fmt.Errorf("tensorrt: CUDA device %d stream %d: %w; the device is left as it is, "+
				"its memory allocated until the process exits", d.ordinal, l.id, err)
		}
	}
	return nil
}

// err returns the device's failure.
func (d *device) err() error {
	if de := d.failure.Load(); de != nil {
		return de
	}
	return &DeviceError{Device: d.ordinal, Err: errors.New("failed")}
}

// model is a loaded engine running on its lanes.
type model struct {
	cfg    Config
	cuda   cudaAPI
	trt    trtAPI
	rt     handle
	layout *layout
	// batch is the most samples one lane enqueues; rowsCap the rows its
	// buffers hold (batch raised to the profile minimum, or a static
	// engine's batch).
	batch, rowsCap int
	devices        []*device
	lanes          []*lane
	pool           *lanePool
	samples        *sampleStore
	wg             sync.WaitGroup
	// settleGrace bounds how long release waits for streams that still
	// hold work (after a device timeout) before it abandons their device:
	// the device timeout, and at least minSettleGrace.
	settleGrace time.Duration
}

// minSettleGrace is the least time release gives a stream to drain.
const minSettleGrace = 2 * time.Second

// newModel deserializes plan on every device in ordinals and builds
// cfg.Streams lanes per device. On error it releases what it built.
func newModel(cuda cudaAPI, trt trtAPI, cfg Config, plan []byte, ordinals []int) (m *model, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m = &model{cfg: cfg, cuda: cuda, trt: trt, samples: newSampleStore(), settleGrace: max(cfg.Timeout, minSettleGrace)}
	defer func() {
		if err != nil {
			err = errors.Join(err, m.release())
			m = nil
		}
	}()
	if m.rt, err = trt.RuntimeCreate(); err != nil {
		return m, err
	}
	for slot, ord := range ordinals {
		if err = m.addDevice(slot, ord, plan); err != nil {
			return m, fmt.Errorf("device %d: %w", ord, err)
		}
	}
	m.pool = newLanePool(len(m.lanes))
	// Interleave devices so that a light load spreads across them.
	for s := range cfg.Streams {
		for _, d := range m.devices {
			m.pool.free <- m.lanes[d.slot*cfg.Streams+s]
		}
	}
	return m, nil
}

// addDevice deserializes the engines of one device and creates its lanes.
// A dynamic-shape engine gives each optimization profile to one execution
// context at a time, so a device runs ceil(streams/profiles) engine copies.
func (m *model) addDevice(slot, ordinal int, plan []byte) error {
	if err := m.cuda.SetDevice(ordinal); err != nil {
		return err
	}
	d := &device{ordinal: ordinal, slot: slot}
	m.devices = append(m.devices, d)
	first, err := m.trt.Deserialize(m.rt, plan)
	if err != nil {
		return err
	}
	d.engines = append(d.engines, first)
	profiles := max(1, m.trt.NumProfiles(first))
	if m.layout == nil {
		if err := m.setLayout(first, profiles); err != nil {
			return err
		}
	}
	engines := 1
	if m.layout.dynamic {
		engines = (m.cfg.Streams + profiles - 1) / profiles
	}
	for len(d.engines) < engines {
		e, err := m.trt.Deserialize(m.rt, plan)
		if err != nil {
			return err
		}
		d.engines = append(d.engines, e)
	}
	for s := range m.cfg.Streams {
		eng, profile := d.engines[0], 0
		if m.layout.dynamic {
			eng, profile = d.engines[s/profiles], s%profiles
		}
		l, err := newLane(m, d, s, eng, profile)
		if err != nil {
			return fmt.Errorf("stream %d: %w", s, err)
		}
		m.lanes = append(m.lanes, l)
		d.lanes = append(d.lanes, l)
	}
	return nil
}

// setLayout reads the engine's I/O and fixes the batch size.
func (m *model) setLayout(eng handle, profiles int) error {
	used := []int{0}
	for p := 1; p < min(profiles, m.cfg.Streams); p++ {
		used = append(used, p)
	}
	l, err := readLayout(m.trt, eng, used)
	if err != nil {
		return err
	}
	m.layout = l
	m.batch = l.maxBatch
	if b := m.cfg.BatchSize; b > 0 {
		if b > l.maxBatch {
			return fmt.Errorf("batch_size %d exceeds the engine's maximum batch %d", b, l.maxBatch)
		}
		m.batch = b
	}
	m.rowsCap = l.rows(m.batch)
	return nil
}

// release frees every lane, engine, sample and the runtime. The lanes'
// goroutines have exited, but a batch whose wait timed out may still have
// work queued on its stream: release first waits for every stream to
// drain, up to settleGrace in all, since freeing memory or an event that
// queued work still uses is undefined on a GPU. A device whose streams do
// not drain is abandoned: nothing on it is freed, and the runtime, which
// must outlive its engines, is kept too.
func (m *model) release() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var errs []error
	deadline := time.Now().Add(m.settleGrace)
	wedged := false
	for _, d := range m.devices {
		if err := m.cuda.SetDevice(d.ordinal); err != nil {
			errs = append(errs, err)
		}
		if err := d.settle(deadline); err != nil {
			d.wedged, wedged = true, true
			errs = append(errs, err)
		}
	}
	errs = append(errs, m.freeAllSamples())
	for _, d := range m.devices {
		if d.wedged {
			continue
		}
		if err := m.cuda.SetDevice(d.ordinal); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range d.lanes {
			errs = append(errs, l.release())
		}
		d.lanes = nil
		for _, p := range d.deferred {
			errs = append(errs, m.cuda.Free(p))
		}
		d.deferred = nil
		for _, e := range d.engines {
			m.trt.EngineDestroy(e)
		}
		d.engines = nil
	}
	m.lanes = nil
	if m.rt != 0 && !wedged {
		m.trt.RuntimeDestroy(m.rt)
		m.rt = 0
	}
	return errors.Join(errs...)
}

// stop waits for in-flight batches, ends the lane goroutines and frees
// everything.
func (m *model) stop() error {
	// Lanes stay out of the pool: nothing may run any more.
	_, _ = m.pool.holdAll(nil)
	m.wg.Wait()
	return m.release()
}

// infer splits q into balanced batches of at most m.batch samples and runs
// each on an idle lane as one becomes free: the last on the caller's
// goroutine, the others on goroutines of their own. Completions are
// reported as each batch's event fires.
//
// When ctx ends, batches not yet dispatched fail at once and Infer returns
// without waiting for dispatched ones, except the one it runs itself, which
// finishes first (or fails by the device timeout).
func (m *model) infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	n := len(q.Samples)
	if n == 0 {
		return nil
	}
	batches := splitBatches(n, m.batch)
	cl := newCall(c, batches)
	var dispatchErr error
	for i := range batches {
		start, end := batchBounds(n, batches, i)
		l, err := m.pool.acquire(ctx.Done())
		if err != nil {
			if errors.Is(err, errCanceled) {
				err = ctx.Err()
			}
			dispatchErr = fmt.Errorf("tensorrt: infer: %w", err)
			for _, s := range q.Samples[start:] {
				c.Fail(s.ID, dispatchErr)
			}
			for range batches - i {
				cl.finish()
			}
			break
		}
		m.dispatch(l, &batch{call: cl, samples: q.Samples[start:end]}, i == batches-1)
	}
	select {
	case <-cl.finished:
		return dispatchErr
	default:
	}
	select {
	case <-cl.finished:
		return dispatchErr
	case <-ctx.Done():
		cl.abandon()
		return fmt.Errorf("tensorrt: infer: %w", ctx.Err())
	}
}

// dispatch runs b on l: inline on the caller's goroutine for the last batch
// of a query (saving two goroutine hand-offs), on a new goroutine owned by
// the model otherwise.
func (m *model) dispatch(l *lane, b *batch, inline bool) {
	if inline {
		l.run(b)
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		l.run(b)
	}()
}

// warmup runs one full batch of zeros on every lane.
func (m *model) warmup(ctx context.Context) error {
	held, err := m.pool.holdAll(ctx.Done())
	if err != nil {
		return fmt.Errorf("tensorrt: warm up: %w", ctx.Err())
	}
	if len(held) == 0 {
		return ErrNoDevice
	}
	cl := newCall(nil, len(held))
	for _, l := range held {
		m.dispatch(l, &batch{call: cl}, false)
	}
	<-cl.finished
	return cl.err
}

// exclusive runs fn with every lane idle and held.
func (m *model) exclusive(ctx context.Context, fn func() error) error {
	held, err := m.pool.holdAll(ctx.Done())
	if err != nil {
		return fmt.Errorf("tensorrt: wait for idle lanes: %w", ctx.Err())
	}
	defer func() {
		for _, l := range held {
			m.pool.release(l)
		}
	}()
	return fn()
}
