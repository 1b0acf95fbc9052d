package hosttest

import (
	"context"
	"encoding/binary"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
)

// Backend is a fake host.Backend. Its zero value is not ready: use New.
type Backend struct {
	// Output returns a sample's output; nil means its 8-byte little-endian
	// index. Set it before the first Issue.
	Output func(r abi.IssueRecord) []byte
	// Status returns a sample's status; nil means OK for every sample.
	Status func(r abi.IssueRecord) abi.Code

	info host.Info

	mu       sync.Mutex
	handler  host.Handler
	calls    []string
	model    host.Model
	samples  map[uint64][]byte
	issued   []abi.IssueRecord
	queries  int
	flushes  int
	err      error
	done     chan struct{}
	closed   bool
	holdBack bool
	held     []abi.IssueRecord
}

var _ host.Backend = (*Backend)(nil)

// New returns a fake that describes itself with info (Transport defaults
// to in-process, MaxInFlight and Instances to 1).
func New(info host.Info) *Backend {
	if info.Transport == "" {
		info.Transport = host.TransportInProcess
	}
	info.MaxInFlight = max(info.MaxInFlight, 1)
	info.Instances = max(info.Instances, 1)
	if info.ABIMajor == 0 {
		info.ABIMajor, info.ABIMinor = abi.Major, abi.Minor
	}
	return &Backend{info: info, handler: host.HandlerFuncs{}, samples: map[uint64][]byte{}, done: make(chan struct{})}
}

// Info returns the info given to New.
func (b *Backend) Info() host.Info { return b.info }

func (b *Backend) record(call string) error {
	b.calls = append(b.calls, call)
	if b.err != nil {
		return b.err
	}
	if b.closed {
		return host.ErrClosed
	}
	return nil
}

// Load records the model.
func (b *Backend) Load(ctx context.Context, m host.Model) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.record("Load"); err != nil {
		return err
	}
	b.model = m
	return ctx.Err()
}

// LoadSamples keeps a copy of the samples.
func (b *Backend) LoadSamples(ctx context.Context, samples []host.Sample) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.record("LoadSamples"); err != nil {
		return err
	}
	for _, s := range samples {
		b.samples[s.Index] = append([]byte(nil), s.Data...)
	}
	return ctx.Err()
}

// UnloadSamples forgets samples.
func (b *Backend) UnloadSamples(ctx context.Context, indices []uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.record("UnloadSamples"); err != nil {
		return err
	}
	for _, i := range indices {
		delete(b.samples, i)
	}
	return ctx.Err()
}

// Warmup records the call.
func (b *Backend) Warmup(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.record("Warmup"); err != nil {
		return err
	}
	return ctx.Err()
}

// SetHandler sets where completions go.
func (b *Backend) SetHandler(h host.Handler) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h == nil {
		h = host.HandlerFuncs{}
	}
	b.handler = h
}

// HoldBack makes Issue keep samples in flight instead of completing them,
// until Release (or Flush, or Fail) — to test what happens while samples
// are in flight.
func (b *Backend) HoldBack() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.holdBack = true
}

// Release completes the samples held back and stops holding back.
func (b *Backend) Release() {
	b.mu.Lock()
	b.holdBack = false
	h, batch := b.handler, b.completions(b.held)
	b.held = nil
	b.mu.Unlock()
	deliver(h, batch)
}

// Issue completes the samples through the handler before it returns
// (unless held back). The handler runs without any lock held: it may issue
// again, as a LoadGen issuing the next query on completion does.
func (b *Backend) Issue(ctx context.Context, samples []abi.IssueRecord) error {
	b.mu.Lock()
	if err := b.refuse(ctx); err != nil {
		b.mu.Unlock()
		return err
	}
	b.queries++
	b.issued = append(b.issued, samples...)
	if b.holdBack {
		b.held = append(b.held, samples...)
		b.mu.Unlock()
		return nil
	}
	h, batch := b.handler, b.completions(samples)
	b.mu.Unlock()
	deliver(h, batch)
	return nil
}

func (b *Backend) refuse(ctx context.Context) error {
	if b.err != nil {
		return b.err
	}
	if b.closed {
		return host.ErrClosed
	}
	return ctx.Err()
}

func deliver(h host.Handler, batch []host.Completion) {
	if len(batch) > 0 {
		h.Complete(batch)
	}
}

// completions builds the completions of samples; b.mu is held.
func (b *Backend) completions(samples []abi.IssueRecord) []host.Completion {
	batch := make([]host.Completion, 0, len(samples))
	for _, r := range samples {
		var out []byte
		switch {
		case b.Output != nil:
			out = b.Output(r)
		case b.samples[r.Index] != nil:
			out = b.samples[r.Index]
		default:
			out = binary.LittleEndian.AppendUint64(nil, r.Index)
		}
		if r.Flags&abi.FlagWantOutput == 0 {
			out = nil
		}
		st := abi.OK
		if b.Status != nil {
			st = b.Status(r)
		}
		if st != abi.OK {
			out = []byte(st.String())
		}
		batch = append(batch, host.Completion{ID: r.ID, Status: st, Data: append([]byte(nil), out...)})
	}
	return batch
}

// Flush records the call and completes samples held back.
func (b *Backend) Flush(ctx context.Context) error {
	b.mu.Lock()
	if err := b.record("Flush"); err != nil {
		b.mu.Unlock()
		return err
	}
	b.flushes++
	h, batch := b.handler, b.completions(b.held)
	b.held = nil
	b.mu.Unlock()
	deliver(h, batch)
	return ctx.Err()
}

// Fail ends the backend as a failing plugin would: every sample held back
// fails with err's message, Done closes, every later call returns err.
func (b *Backend) Fail(err error) {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return
	}
	b.err = err
	batch := make([]host.Completion, len(b.held))
	for i, r := range b.held {
		batch[i] = host.Completion{ID: r.ID, Status: abi.Aborted, Data: []byte(err.Error())}
	}
	b.held = nil
	h := b.handler
	close(b.done)
	b.mu.Unlock()
	deliver(h, batch)
}

// Close ends the backend; samples held back fail.
func (b *Backend) Close() error {
	b.mu.Lock()
	closed := b.closed
	b.closed = true
	b.calls = append(b.calls, "Close")
	b.mu.Unlock()
	if !closed {
		b.Fail(host.ErrClosed)
	}
	return nil
}

// Done is closed when the backend failed or was closed.
func (b *Backend) Done() <-chan struct{} { return b.done }

// Err returns what ended the backend, or nil.
func (b *Backend) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Calls returns the control calls made, in order ("Load", "LoadSamples",
// "UnloadSamples", "Warmup", "Flush", "Close").
func (b *Backend) Calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.calls...)
}

// Issued returns every sample issued, in order, and the number of queries.
func (b *Backend) Issued() ([]abi.IssueRecord, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]abi.IssueRecord(nil), b.issued...), b.queries
}

// Model returns the model loaded last.
func (b *Backend) Model() host.Model {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.model
}

// Loaded returns the indices of the samples loaded now, in no order.
func (b *Backend) Loaded() []uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]uint64, 0, len(b.samples))
	for i := range b.samples {
		out = append(out, i)
	}
	return out
}
