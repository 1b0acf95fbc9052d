package sdktest

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// spy wraps a backend to watch how the SDK drives it: the order of calls,
// the size of each Infer call and how many run at once.
type spy struct {
	b sdk.Backend

	mu       sync.Mutex
	calls    []string // control calls in order, Infer once per run of calls
	closes   int
	problems []string

	infers      atomic.Int64
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
	maxBatch    atomic.Int64
	emptyCalls  atomic.Int64
}

func (s *spy) note(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closes > 0 {
		s.problems = append(s.problems, call+" after Close")
	}
	if n := len(s.calls); n == 0 || s.calls[n-1] != call {
		s.calls = append(s.calls, call)
	}
}

func (s *spy) Info() sdk.Info {
	s.note("Info")
	return s.b.Info()
}

func (s *spy) Load(ctx context.Context, m sdk.Model) error {
	s.note("Load")
	return s.b.Load(ctx, m)
}

func (s *spy) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	s.note("Infer")
	s.infers.Add(1)
	if len(q.Samples) == 0 {
		s.emptyCalls.Add(1)
	}
	raise(&s.maxBatch, int64(len(q.Samples)))
	raise(&s.maxInFlight, s.inFlight.Add(1))
	defer s.inFlight.Add(-1)
	return s.b.Infer(ctx, q, c)
}

func (s *spy) Close() error {
	s.note("Close")
	s.mu.Lock()
	s.closes++
	s.mu.Unlock()
	return s.b.Close()
}

// raise sets v to n if n is larger.
func raise(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if n <= old || v.CompareAndSwap(old, n) {
			return
		}
	}
}

// The optional capabilities, forwarded.
type (
	spyFlusher struct{ s *spy }
	spyWarmer  struct{ s *spy }
	spyLoader  struct{ s *spy }
)

func (f spyFlusher) Flush(ctx context.Context) error {
	f.s.note("Flush")
	return f.s.b.(sdk.Flusher).Flush(ctx)
}

func (w spyWarmer) Warmup(ctx context.Context) error {
	w.s.note("Warmup")
	return w.s.b.(sdk.Warmer).Warmup(ctx)
}

func (l spyLoader) LoadSamples(ctx context.Context, samples []sdk.LoadedSample) error {
	l.s.note("LoadSamples")
	return l.s.b.(sdk.SampleLoader).LoadSamples(ctx, samples)
}

func (l spyLoader) UnloadSamples(ctx context.Context, indices []uint64) error {
	l.s.note("UnloadSamples")
	return l.s.b.(sdk.SampleLoader).UnloadSamples(ctx, indices)
}

// wrap returns the spy as a backend with exactly the optional
// capabilities of the backend it watches, so the SDK derives the same
// capability bits.
func (s *spy) wrap() sdk.Backend {
	_, f := s.b.(sdk.Flusher)
	_, w := s.b.(sdk.Warmer)
	_, l := s.b.(sdk.SampleLoader)
	type (
		F = spyFlusher
		W = spyWarmer
		L = spyLoader
	)
	switch {
	case f && w && l:
		return struct {
			*spy
			F
			W
			L
		}{s, F{s}, W{s}, L{s}}
	case f && w:
		return struct {
			*spy
			F
			W
		}{s, F{s}, W{s}}
	case f && l:
		return struct {
			*spy
			F
			L
		}{s, F{s}, L{s}}
	case w && l:
		return struct {
			*spy
			W
			L
		}{s, W{s}, L{s}}
	case f:
		return struct {
			*spy
			F
		}{s, F{s}}
	case w:
		return struct {
			*spy
			W
		}{s, W{s}}
	case l:
		return struct {
			*spy
			L
		}{s, L{s}}
	}
	return s
}
