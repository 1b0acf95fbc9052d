//go:build !wasip1

package sdk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

func TestPending(t *testing.T) {
	t.Parallel()
	var p pending
	t0 := time.Unix(100, 0)
	recs := func(ids ...uint64) []byte {
		var b []byte
		for _, id := range ids {
			b = abi.AppendIssueRecord(b, abi.IssueRecord{ID: id})
		}
		return b
	}
	ids := func(b []byte) []uint64 {
		var out []uint64
		rs := abi.IssueRecords(b)
		for i := range rs.Len() {
			out = append(out, rs.At(i).ID)
		}
		return out
	}
	p.push(recs(1, 2), t0)
	p.push(recs(3), t0.Add(time.Second))
	assert.Equal(t, 3, p.len())
	assert.Equal(t, t0, p.oldest())
	assert.Equal(t, []uint64{1}, ids(p.take(nil, 1)))
	assert.Equal(t, t0, p.oldest(), "sample 2 arrived with 1")
	assert.Equal(t, []uint64{2}, ids(p.take(nil, 1)))
	assert.Equal(t, t0.Add(time.Second), p.oldest())
	// The front is reused once half of the buffer was taken.
	p.push(recs(4, 5, 6), t0.Add(2*time.Second))
	assert.Equal(t, []uint64{3, 4, 5, 6}, ids(p.take(nil, 0)))
	assert.Zero(t, p.len())
	p.push(recs(7), t0)
	p.clear()
	assert.Zero(t, p.len())
	p.push(recs(8, 9), t0.Add(3*time.Second))
	assert.Equal(t, t0.Add(3*time.Second), p.oldest())
	assert.Equal(t, []uint64{8, 9}, ids(p.take(nil, 5)))
}

// batchLog is an Infer or Submit backend that records every batch: when
// it started, its sample ids, and how many calls ran at once.
type batchLog struct {
	maxBatch    int
	inFlight    int
	timeout     time.Duration
	cost        time.Duration // each call's duration
	async       bool          // complete from another goroutine
	submitError error

	mu      sync.Mutex
	batches []batchRecord
	running int
	peak    int
	flushes int
}

type batchRecord struct {
	at  time.Time
	ids []uint64
}

var (
	_ Backend   = (*batchLog)(nil)
	_ Submitter = (*batchLog)(nil)
	_ Flusher   = (*batchLog)(nil)
)

func (b *batchLog) Info() Info {
	return Info{Name: "batchlog", MaxBatch: b.maxBatch, MaxInFlight: b.inFlight, BatchTimeout: b.timeout}
}
func (*batchLog) Load(context.Context, Model) error { return nil }
func (*batchLog) Close() error                      { return nil }

func (b *batchLog) Flush(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushes++
	return nil
}

func (b *batchLog) start(q Query) {
	r := batchRecord{at: time.Now()}
	for _, s := range q.Samples {
		r.ids = append(r.ids, s.ID)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batches = append(b.batches, r)
	b.running++
	b.peak = max(b.peak, b.running)
}

func (b *batchLog) done(q Query, c Completer) {
	b.mu.Lock()
	b.running--
	b.mu.Unlock()
	for _, s := range q.Samples {
		c.Complete(s.ID, nil, 0)
	}
}

func (b *batchLog) Infer(_ context.Context, q Query, c Completer) error {
	b.start(q)
	time.Sleep(b.cost)
	b.done(q, c)
	return nil
}

// Submit is used only when async is set (see submitting).
func (b *batchLog) Submit(_ context.Context, q Query, c Completer) error {
	if b.submitError != nil {
		return b.submitError
	}
	b.start(q)
	samples := slices.Clone(q.Samples)
	time.AfterFunc(b.cost, func() { b.done(Query{Samples: samples}, c) })
	return nil
}

func (b *batchLog) log() ([]batchRecord, int, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.batches), b.peak, b.flushes
}

// syncOnly hides batchLog's Submit.
type syncOnly struct{ *batchLog }

func (s syncOnly) Flush(ctx context.Context) error { return s.batchLog.Flush(ctx) }

// answers collects a session's completions.
type answers struct {
	mu    sync.Mutex
	codes map[uint64][]abi.Code
	msgs  map[uint64]string
	bugs  []error
	flush int
}

func newAnswers() *answers {
	return &answers{codes: map[uint64][]abi.Code{}, msgs: map[uint64]string{}}
}

func (a *answers) Complete(id uint64, code abi.Code, data []byte, _ int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.codes[id] = append(a.codes[id], code)
	if code != abi.OK {
		a.msgs[id] = string(data)
	}
}
func (a *answers) FirstToken(uint64, []byte) {}
func (a *answers) Flushed(abi.Code, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.flush++
}
func (a *answers) Violation(_ uint64, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bugs = append(a.bugs, err)
}

// eachOnce checks that ids 0..n-1, and no other, were answered exactly
// once.
func (a *answers) eachOnce(t *testing.T, n int) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	assert.Empty(t, a.bugs)
	assert.Len(t, a.codes, n)
	for id := range uint64(n) {
		assert.Len(t, a.codes[id], 1, "sample id %d", id)
	}
}

// batchSession opens a session of b (as a Submitter when async) with
// samples 0..63 loaded.
func batchSession(t *testing.T, b *batchLog) (*Session, *answers) {
	t.Helper()
	var be Backend = syncOnly{b}
	if b.async {
		be = b
	}
	srv := NewServer(be, ServerConfig{})
	require.Equal(t, uint32(abi.OK), srv.Load(t.Context(), &backendv1.LoadRequest{}).GetStatus().GetCode())
	var samples []LoadedSample
	for i := range uint64(64) {
		samples = append(samples, LoadedSample{Index: i, Data: []byte{byte(i)}})
	}
	require.Equal(t, uint32(abi.OK), srv.LoadSamples(t.Context(), samples, nil).GetStatus().GetCode())
	a := newAnswers()
	s, err := srv.OpenSession(t.Context(), a)
	require.NoError(t, err)
	return s, a
}

// query issues samples ids [from, from+n) as one query.
func query(t *testing.T, s *Session, from, n int) {
	t.Helper()
	var b []byte
	for id := from; id < from+n; id++ {
		b = abi.AppendIssueRecord(b, abi.IssueRecord{ID: uint64(id), Index: uint64(id % 64)})
	}
	require.NoError(t, s.Issue(b))
}

func sizes(bs []batchRecord) []int {
	var out []int
	for _, b := range bs {
		out = append(out, len(b.ids))
	}
	return out
}

func TestBatcherDeadlineAndFullBatches(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				b := &batchLog{maxBatch: 4, inFlight: 2, timeout: time.Millisecond, async: async}
				s, a := batchSession(t, b)
				t0 := time.Now()
				// Three one-sample queries: nothing runs before the oldest
				// has waited the timeout; then one batch of the three.
				for id := range 3 {
					query(t, s, id, 1)
					time.Sleep(100 * time.Microsecond)
				}
				time.Sleep(699 * time.Microsecond)
				synctest.Wait()
				got, _, _ := b.log()
				assert.Empty(t, got, "a partial batch waits for its deadline")
				time.Sleep(time.Microsecond)
				synctest.Wait()
				got, _, _ = b.log()
				require.Equal(t, []int{3}, sizes(got))
				assert.Equal(t, t0.Add(time.Millisecond), got[0].at, "sent when the oldest sample is due")

				// A full batch goes at once; a query larger than MaxBatch
				// makes full batches and leaves the rest to wait.
				query(t, s, 3, 4)
				synctest.Wait()
				query(t, s, 7, 10)
				synctest.Wait()
				got, _, _ = b.log()
				assert.Equal(t, []int{3, 4, 4, 4}, sizes(got))
				for _, r := range got[1:] {
					assert.Equal(t, got[1].at, r.at, "full batches do not wait")
				}
				time.Sleep(time.Millisecond)
				synctest.Wait()
				got, _, _ = b.log()
				assert.Equal(t, []int{3, 4, 4, 4, 2}, sizes(got))
				s.End()
				a.eachOnce(t, 17)
			})
		})
	}
}

// TestBatcherAcrossQueriesWhileBusy: with every slot busy, samples of
// many queries wait in one queue; a freed slot takes a full batch of
// them. At most MaxInFlight calls run, never more than MaxBatch samples
// each, and every sample is answered once.
func TestBatcherAcrossQueriesWhileBusy(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				b := &batchLog{maxBatch: 8, inFlight: 2, timeout: 100 * time.Microsecond, cost: time.Millisecond, async: async}
				s, a := batchSession(t, b)
				// 200 one-sample queries, one every 10 µs: 2 ms of arrivals.
				for id := range 200 {
					query(t, s, id, 1)
					time.Sleep(10 * time.Microsecond)
				}
				time.Sleep(50 * time.Millisecond)
				synctest.Wait()
				got, peak, _ := b.log()
				assert.LessOrEqual(t, peak, 2, "calls at once")
				n := 0
				for _, r := range got {
					assert.LessOrEqual(t, len(r.ids), 8)
					n += len(r.ids)
				}
				assert.Equal(t, 200, n)
				assert.Less(t, len(got), 40, "batched across queries: %v", sizes(got))
				s.End()
				a.eachOnce(t, 200)
			})
		})
	}
}

func TestBatcherFlushAndEnd(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &batchLog{maxBatch: 4, inFlight: 1, timeout: time.Hour}
		s, a := batchSession(t, b)
		query(t, s, 0, 2)
		require.NoError(t, s.Flush())
		synctest.Wait()
		got, _, flushes := b.log()
		assert.Equal(t, []int{2}, sizes(got), "a flush sends what waits, without the deadline")
		assert.Equal(t, 1, flushes)
		assert.Equal(t, 1, a.flush)
		query(t, s, 2, 3)
		synctest.Wait()
		got, _, _ = b.log()
		assert.Equal(t, []int{2}, sizes(got))
		s.End()
		got, _, _ = b.log()
		assert.Equal(t, []int{2, 3}, sizes(got), "the end sends what waits")
		a.eachOnce(t, 5)
	})
}

func TestBatcherAbortDropsWaitingSamples(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &batchLog{maxBatch: 4, inFlight: 1, timeout: time.Hour}
		s, a := batchSession(t, b)
		query(t, s, 0, 2)
		s.Abort()
		got, _, _ := b.log()
		assert.Empty(t, got)
		assert.Empty(t, a.codes)
		assert.ErrorIs(t, s.Issue(abi.AppendIssueRecord(nil, abi.IssueRecord{ID: 9})), ErrSessionEnded)
	})
}

func TestSubmitErrorsFailTheBatch(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &batchLog{maxBatch: 4, inFlight: 1, async: true, submitError: Errorf(abi.Unavailable, "device lost")}
		s, a := batchSession(t, b)
		query(t, s, 0, 3)
		s.End()
		a.eachOnce(t, 3)
		a.mu.Lock()
		defer a.mu.Unlock()
		assert.Equal(t, []abi.Code{abi.Unavailable}, a.codes[0])
		assert.Equal(t, "device lost", a.msgs[2])
	})
}

// neverDone submits and never completes: an Abort still ends the session,
// failing nothing it did not have to.
type neverDone struct{ batchLog }

func (n *neverDone) Submit(context.Context, Query, Completer) error { return nil }

func TestAbortEndsAWaitingSubmit(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		n := &neverDone{batchLog{maxBatch: 4, inFlight: 1}}
		srv := NewServer(n, ServerConfig{})
		srv.Load(t.Context(), &backendv1.LoadRequest{})
		srv.LoadSamples(t.Context(), []LoadedSample{{Index: 0, Data: []byte{1}}}, nil)
		a := newAnswers()
		s, err := srv.OpenSession(t.Context(), a)
		require.NoError(t, err)
		require.NoError(t, s.Issue(abi.AppendIssueRecord(nil, abi.IssueRecord{ID: 1})))
		synctest.Wait()
		s.Abort()
		a.mu.Lock()
		defer a.mu.Unlock()
		assert.Equal(t, []abi.Code{abi.Canceled}, a.codes[1], "the abort fails the sample its Submit held")
	})
}

func TestWaitSubmit(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := &batchLog{async: true, cost: time.Millisecond}
		c := &countingCompleter{}
		q := Query{Samples: []Sample{{ID: 1}, {ID: 2}}}
		require.NoError(t, WaitSubmit(t.Context(), b, q, c))
		assert.Equal(t, 2, c.n)
		b.submitError = errors.New("no")
		assert.EqualError(t, WaitSubmit(t.Context(), b, q, c), "no")
	})
}

type countingCompleter struct {
	mu sync.Mutex
	n  int
}

func (c *countingCompleter) Complete(uint64, []byte, int64) { c.mu.Lock(); c.n++; c.mu.Unlock() }
func (c *countingCompleter) FirstToken(uint64, []byte)      {}
func (c *countingCompleter) Fail(uint64, error)             { c.mu.Lock(); c.n++; c.mu.Unlock() }
