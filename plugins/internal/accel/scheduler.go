package accel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// Split says how a query is cut into batches of at most the batch size.
type Split int

const (
	// Balanced cuts n samples into the fewest batches, with sizes that
	// differ by at most one (a dynamic-shape engine runs what it gets).
	Balanced Split = iota
	// Full cuts n samples into full batches and a last partial one (a
	// compiled program runs its fixed batch whatever it gets).
	Full
)

// SchedulerConfig says how a [Scheduler] cuts and names its work.
type SchedulerConfig struct {
	// Plugin starts every error, e.g. "tensorrt".
	Plugin string
	// BatchSize is the most samples one slot runs at once.
	BatchSize int
	// Split chooses the batch sizes.
	Split Split
	// NoDevice is the error once every slot of every device is retired.
	NoDevice error
	// Group, when set, orders samples that cannot share a batch (a
	// dynamic-shape engine's samples of different shapes): Infer sorts a
	// query's samples by it, stably, and cuts batches within each run of
	// samples it finds equal (0).
	Group func(a, b *sdk.Sample) int
}

// Scheduler runs queries in batches on a pool of slots and owns the
// goroutines that run them.
type Scheduler[S Slot] struct {
	cfg  SchedulerConfig
	pool *Pool[S]
	wg   sync.WaitGroup
}

// NewScheduler returns a scheduler over slots, listed device by device with
// the same number per device (see [NewPool]).
func NewScheduler[S Slot](cfg SchedulerConfig, slots []S, devices int) *Scheduler[S] {
	cfg.BatchSize = max(cfg.BatchSize, 1)
	return &Scheduler[S]{cfg: cfg, pool: NewPool(slots, devices, cfg.NoDevice)}
}

// Pool returns the scheduler's slot pool.
func (s *Scheduler[S]) Pool() *Pool[S] { return s.pool }

// batches returns how many batches n samples take.
func (s *Scheduler[S]) batches(n int) int { return (n + s.cfg.BatchSize - 1) / s.cfg.BatchSize }

// bounds returns batch i of k over n samples.
func (s *Scheduler[S]) bounds(n, k, i int) (start, end int) {
	if s.cfg.Split == Full {
		start = i * s.cfg.BatchSize
		return start, min(start+s.cfg.BatchSize, n)
	}
	return BalancedBounds(n, k, i)
}

// BalancedBounds returns batch i of k over n samples when sizes differ by
// at most one, larger batches first.
func BalancedBounds(n, k, i int) (start, end int) {
	base, extra := n/k, n%k
	start = i*base + min(i, extra)
	end = start + base
	if i < extra {
		end++
	}
	return start, end
}

// Infer runs q in batches, each on an idle slot as one becomes free: the
// last on the caller's goroutine (saving two goroutine hand-offs), the
// others on goroutines of the scheduler. Completions are reported as each
// batch finishes.
//
// When ctx ends, batches not yet dispatched fail at once and Infer returns
// without waiting for dispatched ones, except the one it runs itself,
// which finishes first.
func (s *Scheduler[S]) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	n := len(q.Samples)
	if n == 0 {
		return nil
	}
	samples, ranges := s.cut(q.Samples)
	k := len(ranges)
	cl := newCall(c, k)
	var dispatchErr error
	for i, r := range ranges {
		start, end := r[0], r[1]
		slot, err := s.pool.Take(ctx.Done())
		if err != nil {
			if errors.Is(err, errCanceled) {
				err = ctx.Err()
			}
			dispatchErr = fmt.Errorf("%s: infer: %w", s.cfg.Plugin, err)
			for _, sm := range samples[start:] {
				c.Fail(sm.ID, dispatchErr)
			}
			for range k - i {
				cl.finish()
			}
			break
		}
		s.dispatch(slot, &Batch{call: cl, Samples: samples[start:end]}, i == k-1)
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
		return fmt.Errorf("%s: infer: %w", s.cfg.Plugin, ctx.Err())
	}
}

// cut returns the samples in the order they run and the [start, end)
// ranges of its batches: the query as it came, cut into balanced or full
// batches; with Group, sorted first and cut run by run of samples that
// may share a batch.
func (s *Scheduler[S]) cut(samples []sdk.Sample) ([]sdk.Sample, [][2]int) {
	var ranges [][2]int
	add := func(off, n int) {
		k := s.batches(n)
		for i := range k {
			start, end := s.bounds(n, k, i)
			ranges = append(ranges, [2]int{off + start, off + end})
		}
	}
	group := s.cfg.Group
	mixed := false
	for i := 1; group != nil && i < len(samples) && !mixed; i++ {
		mixed = group(&samples[0], &samples[i]) != 0
	}
	if !mixed {
		add(0, len(samples))
		return samples, ranges
	}
	samples = slices.Clone(samples)
	slices.SortStableFunc(samples, func(a, b sdk.Sample) int { return group(&a, &b) })
	for start := 0; start < len(samples); {
		end := start + 1
		for end < len(samples) && group(&samples[start], &samples[end]) == 0 {
			end++
		}
		add(start, end-start)
		start = end
	}
	return samples, ranges
}

// dispatch runs b on slot, inline or on a goroutine of the scheduler, then
// finishes b and gives the slot back.
func (s *Scheduler[S]) dispatch(slot S, b *Batch, inline bool) {
	run := func() {
		slot.Run(b)
		b.call.finish()
		s.pool.Give(slot)
	}
	if inline {
		run()
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		run()
	}()
}

// Warmup runs one warm-up batch on every live slot at once and returns the
// first error.
func (s *Scheduler[S]) Warmup(ctx context.Context) error {
	held, err := s.pool.HoldAll(ctx.Done())
	if err != nil {
		return fmt.Errorf("%s: warm up: %w", s.cfg.Plugin, ctx.Err())
	}
	if len(held) == 0 {
		return s.cfg.NoDevice
	}
	cl := newCall(nil, len(held))
	for _, slot := range held {
		s.dispatch(slot, &Batch{call: cl}, false)
	}
	<-cl.finished
	return cl.err
}

// Exclusive runs fn with every live slot idle and held.
func (s *Scheduler[S]) Exclusive(ctx context.Context, fn func() error) error {
	held, err := s.pool.HoldAll(ctx.Done())
	if err != nil {
		return fmt.Errorf("%s: wait for idle slots: %w", s.cfg.Plugin, ctx.Err())
	}
	defer func() {
		for _, slot := range held {
			s.pool.Give(slot)
		}
	}()
	return fn()
}

// Stop waits for every batch in flight, including ones Infer stopped
// waiting for, and keeps every slot out of the pool: nothing runs after it.
func (s *Scheduler[S]) Stop() {
	_, _ = s.pool.HoldAll(nil)
	s.wg.Wait()
}
