package inproc

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// backend adapts an sdk.Backend to host.Backend.
type backend struct {
	b    sdk.Backend
	info host.Info
	ctx  context.Context // base of Infer calls; canceled by Close

	cancel  context.CancelFunc
	handler atomic.Pointer[handlerRef]

	samplesMu sync.RWMutex
	samples   map[uint64][]byte

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []query // FIFO from head
	head    int
	free    []query
	running int
	closing bool

	done    chan struct{}
	errMu   sync.Mutex
	err     error
	workers sync.WaitGroup
	close   sync.Once
	closeE  error
}

type handlerRef struct{ h host.Handler }

// query is one Infer call's samples.
type query struct{ recs []abi.IssueRecord }

var _ host.Backend = (*backend)(nil)

// Open serves b in-process. It calls b.Info once.
func Open(ctx context.Context, b sdk.Backend) (host.Backend, error) {
	si := b.Info()
	if si.MaxBatch < 0 || si.MaxInFlight < 0 {
		return nil, fmt.Errorf("plugin %q: info: negative MaxBatch (%d) or MaxInFlight (%d)", si.Name, si.MaxBatch, si.MaxInFlight)
	}
	caps := abi.CapModelPath | abi.CapFirstToken
	if _, ok := b.(sdk.Flusher); ok {
		caps |= abi.CapFlush
	}
	if _, ok := b.(sdk.Warmer); ok {
		caps |= abi.CapWarmup
	}
	if _, ok := b.(sdk.SampleLoader); ok {
		caps |= abi.CapSampleLoader
	}
	info := host.Info{
		Name: si.Name, Version: si.Version, Description: si.Description, ABIMajor: abi.Major, ABIMinor: abi.Minor,
		Capabilities: caps, MaxBatch: si.MaxBatch, MaxInFlight: max(1, si.MaxInFlight),
		Transport: host.TransportInProcess, Instances: 1,
	}
	for _, d := range si.Devices {
		info.Devices = append(info.Devices, host.Device{ID: d.ID, Name: d.Name, Kind: d.Kind, MemoryBytes: d.MemoryBytes, Driver: d.Driver})
	}
	ictx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a := &backend{b: b, info: info, ctx: ictx, cancel: cancel, samples: map[uint64][]byte{}, done: make(chan struct{})}
	a.cond = sync.NewCond(&a.mu)
	a.handler.Store(&handlerRef{host.HandlerFuncs{}})
	for range info.MaxInFlight {
		a.workers.Add(1)
		go a.work()
	}
	return a, nil
}

func (a *backend) Info() host.Info { return a.info }

func (a *backend) SetHandler(h host.Handler) {
	if h == nil {
		h = host.HandlerFuncs{}
	}
	a.handler.Store(&handlerRef{h})
}

func (a *backend) Done() <-chan struct{} { return a.done }

func (a *backend) Err() error {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	return a.err
}

// fail ends the backend with err unless it ended before.
func (a *backend) fail(err error) {
	a.errMu.Lock()
	first := a.err == nil
	if first {
		a.err = err
		close(a.done)
	}
	a.errMu.Unlock()
	if !first {
		return
	}
	a.mu.Lock()
	failed := append([]query(nil), a.queue[a.head:]...)
	a.queue, a.head = a.queue[:0], 0
	a.mu.Unlock()
	a.cond.Broadcast()
	for _, q := range failed {
		a.failAll(q.recs, abi.Aborted, err.Error())
	}
}

func (a *backend) perr(op string, err error) error {
	return &host.PluginError{Plugin: a.info.Name, Op: op, Err: err}
}

// call runs one control call of the backend, recovering a panic.
func (a *backend) call(ctx context.Context, op string, f func() error) error {
	if err := a.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return a.guard(op, f)
}

// guard runs f, turning a panic into an INTERNAL error.
func (a *backend) guard(op string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = a.perr(op, &host.StatusError{Code: abi.Internal, Message: fmt.Sprintf("panic: %v\n%s", r, debug.Stack())})
		}
	}()
	if err := f(); err != nil {
		return a.perr(op, err)
	}
	return nil
}

func (a *backend) Load(ctx context.Context, m host.Model) error {
	return a.call(ctx, "load", func() error {
		return a.b.Load(ctx, sdk.Model{Path: m.Path, Bytes: m.Bytes, Options: m.Options})
	})
}

func (a *backend) LoadSamples(ctx context.Context, samples []host.Sample) error {
	loaded := make([]sdk.LoadedSample, len(samples))
	a.samplesMu.Lock()
	for i, s := range samples {
		data := append([]byte(nil), s.Data...)
		a.samples[s.Index] = data
		loaded[i] = sdk.LoadedSample{Index: s.Index, Data: data}
	}
	a.samplesMu.Unlock()
	sl, ok := a.b.(sdk.SampleLoader)
	if !ok {
		return a.Err()
	}
	return a.call(ctx, "load samples", func() error { return sl.LoadSamples(ctx, loaded) })
}

func (a *backend) UnloadSamples(ctx context.Context, indices []uint64) error {
	if sl, ok := a.b.(sdk.SampleLoader); ok {
		if err := a.call(ctx, "unload samples", func() error { return sl.UnloadSamples(ctx, indices) }); err != nil {
			return err
		}
	}
	a.samplesMu.Lock()
	for _, i := range indices {
		delete(a.samples, i)
	}
	a.samplesMu.Unlock()
	return a.Err()
}

func (a *backend) Warmup(ctx context.Context) error {
	w, ok := a.b.(sdk.Warmer)
	if !ok {
		return a.Err()
	}
	return a.call(ctx, "warmup", func() error { return w.Warmup(ctx) })
}

// Flush waits until no Infer call runs (the SDK never calls a capability
// concurrently with Infer) and calls the backend's Flush.
func (a *backend) Flush(ctx context.Context) error {
	f, ok := a.b.(sdk.Flusher)
	if !ok {
		return a.Err()
	}
	a.mu.Lock()
	for (a.queued() > 0 || a.running > 0) && a.Err() == nil {
		a.cond.Wait()
	}
	a.running++ // keep workers out while Flush runs
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.running--
		a.mu.Unlock()
		a.cond.Broadcast()
	}()
	return a.call(ctx, "flush", func() error { return f.Flush(ctx) })
}

// queued is the number of queries waiting; a.mu is held.
func (a *backend) queued() int { return len(a.queue) - a.head }

// Issue splits the query into Infer calls of at most MaxBatch samples and
// queues them for the workers.
func (a *backend) Issue(ctx context.Context, samples []abi.IssueRecord) error {
	if err := a.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	per := len(samples)
	if a.info.MaxBatch > 0 {
		per = min(per, a.info.MaxBatch)
	}
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		return host.ErrClosed
	}
	for off := 0; off < len(samples); off += per {
		var q query
		if k := len(a.free); k > 0 {
			q, a.free = a.free[k-1], a.free[:k-1]
		}
		q.recs = append(q.recs[:0], samples[off:min(off+per, len(samples))]...)
		a.queue = append(a.queue, q)
	}
	a.mu.Unlock()
	a.cond.Broadcast()
	return nil
}

// work runs queued queries, one Infer call at a time.
func (a *backend) work() {
	defer a.workers.Done()
	c := &completer{a: a}
	sq := sdk.Query{}
	for {
		a.mu.Lock()
		for a.queued() == 0 && !a.closing {
			a.cond.Wait()
		}
		if a.queued() == 0 {
			a.mu.Unlock()
			return
		}
		q := a.queue[a.head]
		a.queue[a.head] = query{}
		if a.head++; a.head == len(a.queue) {
			a.queue, a.head = a.queue[:0], 0
		}
		a.running++
		a.mu.Unlock()

		sq.Samples = sq.Samples[:0]
		a.samplesMu.RLock()
		for _, r := range q.recs {
			sq.Samples = append(sq.Samples, sdk.Sample{ID: r.ID, Index: r.Index, Data: a.samples[r.Index], WantOutput: r.Flags&abi.FlagWantOutput != 0})
		}
		a.samplesMu.RUnlock()
		if err := a.Err(); err != nil {
			a.failAll(q.recs, abi.Aborted, err.Error())
		} else {
			a.infer(c, sq, q.recs)
		}

		a.mu.Lock()
		a.running--
		a.free = append(a.free, q)
		a.mu.Unlock()
		a.cond.Broadcast()
	}
}

// infer runs one Infer call and fails whatever it left uncompleted.
func (a *backend) infer(c *completer, q sdk.Query, recs []abi.IssueRecord) {
	c.start(recs)
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		return a.b.Infer(a.ctx, q, c)
	}()
	left := c.finish()
	if c.violation != nil {
		a.fail(a.perr("issue", c.violation))
	}
	if len(left) == 0 {
		return
	}
	msg := fmt.Sprintf("plugin %q returned from Infer without completing the sample", a.info.Name)
	if err != nil {
		msg = err.Error()
	}
	a.failAll(left, abi.Internal, msg)
}

// failAll completes samples with an error.
func (a *backend) failAll(recs []abi.IssueRecord, code abi.Code, msg string) {
	h := a.handler.Load().h
	batch := make([]host.Completion, len(recs))
	for i, r := range recs {
		batch[i] = host.Completion{ID: r.ID, Status: code, Data: []byte(msg)}
	}
	if len(batch) > 0 {
		h.Complete(batch)
	}
}

func (a *backend) Close() error {
	a.close.Do(func() {
		a.mu.Lock()
		a.closing = true
		a.mu.Unlock()
		a.cond.Broadcast()
		a.workers.Wait()
		a.cancel()
		a.closeE = a.guard("close", a.b.Close)
		a.fail(host.ErrClosed)
	})
	return a.closeE
}
