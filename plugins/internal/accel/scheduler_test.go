package accel

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk"
)

func TestBatchBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		split    Split
		n, max   int
		wantSize []int
	}{
		{name: "fits in one", n: 5, max: 8, wantSize: []int{5}},
		{name: "exact", n: 16, max: 8, wantSize: []int{8, 8}},
		{name: "balanced", n: 17, max: 8, wantSize: []int{6, 6, 5}},
		{name: "one each", n: 3, max: 1, wantSize: []int{1, 1, 1}},
		{name: "full batches first", split: Full, n: 17, max: 8, wantSize: []int{8, 8, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewScheduler(SchedulerConfig{BatchSize: tt.max, Split: tt.split}, []*testSlot{}, 1)
			k := s.batches(tt.n)
			var sizes []int
			next := 0
			for i := range k {
				start, end := s.bounds(tt.n, k, i)
				require.Equal(t, next, start, "batches are contiguous")
				sizes = append(sizes, end-start)
				next = end
			}
			assert.Equal(t, tt.n, next)
			assert.Equal(t, tt.wantSize, sizes)
		})
	}
}

// echoSlot completes every sample with its own data after waiting at
// gate (when set), and fails samples without data.
type echoSlot struct {
	testSlot
	gate    chan struct{}
	mu      sync.Mutex
	batches []int
	warmErr error
}

func (s *echoSlot) Run(b *Batch) {
	if b.Warmup() {
		if s.warmErr != nil {
			b.SetErr(s.warmErr)
		}
		return
	}
	s.mu.Lock()
	s.batches = append(s.batches, len(b.Samples))
	s.mu.Unlock()
	if s.gate != nil {
		<-s.gate
	}
	if !b.Enter() {
		return
	}
	defer b.Leave()
	for _, sm := range b.Samples {
		if sm.Data == nil {
			b.Fail(sm.ID, errors.New("no data"))
			continue
		}
		b.Complete(sm.ID, sm.Data)
	}
}

// recorder keeps completions; after Infer returns it must see no more.
type recorder struct {
	mu     sync.Mutex
	done   map[uint64][]byte
	failed map[uint64]error
	closed bool
}

func newRecorder() *recorder { return &recorder{done: map[uint64][]byte{}, failed: map[uint64]error{}} }

func (r *recorder) Complete(id uint64, data []byte, _ int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		panic("completion after Infer returned")
	}
	r.done[id] = data
}
func (r *recorder) FirstToken(uint64, []byte) {}
func (r *recorder) Fail(id uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		panic("failure after Infer returned")
	}
	r.failed[id] = err
}
func (r *recorder) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

func query(n int, withData bool) sdk.Query {
	var q sdk.Query
	for i := range n {
		s := sdk.Sample{ID: uint64(100 + i), Index: uint64(i)}
		if withData {
			s.Data = []byte{byte(i)}
		}
		q.Samples = append(q.Samples, s)
	}
	return q
}

var errNoDevice = errors.New("test: no device")

func TestInferCompletesEverySample(t *testing.T) {
	t.Parallel()
	sl := []*echoSlot{{}, {}}
	s := NewScheduler(SchedulerConfig{Plugin: "test", BatchSize: 4, NoDevice: errNoDevice}, sl, 1)
	r := newRecorder()
	require.NoError(t, s.Infer(t.Context(), query(10, true), r))
	r.close()
	assert.Len(t, r.done, 10)
	assert.Empty(t, r.failed)
	assert.ElementsMatch(t, []int{4, 3, 3}, append(sl[0].batches, sl[1].batches...))
	s.Stop()
}

func TestInferWithoutDevicesFailsEverySample(t *testing.T) {
	t.Parallel()
	sl := []*echoSlot{{}}
	sl[0].failed.Store(true)
	s := NewScheduler(SchedulerConfig{Plugin: "test", BatchSize: 2, NoDevice: errNoDevice}, sl, 1)
	r := newRecorder()
	err := s.Infer(t.Context(), query(3, true), r)
	require.ErrorIs(t, err, errNoDevice)
	assert.Equal(t, "test: infer: test: no device", err.Error())
	assert.Len(t, r.failed, 3)
	require.ErrorIs(t, s.Warmup(t.Context()), errNoDevice)
}

// TestInferAbandonsOnCancel: when the caller's context ends, Infer fails
// what it has not dispatched, returns without waiting for batches other
// goroutines run, and those never touch its Completer again.
func TestInferAbandonsOnCancel(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	sl := []*echoSlot{{gate: gate}, {}}
	s := NewScheduler(SchedulerConfig{Plugin: "test", BatchSize: 1, NoDevice: errNoDevice}, sl, 2)
	ctx, cancel := context.WithCancel(t.Context())
	r := newRecorder()
	done := make(chan error)
	go func() { done <- s.Infer(ctx, query(3, true), r) }()
	require.Eventually(t, func() bool {
		sl[0].mu.Lock()
		defer sl[0].mu.Unlock()
		return len(sl[0].batches) == 1
	}, 10*time.Second, time.Millisecond, "the first batch reaches the gated slot")
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
	r.close()
	close(gate)
	s.Stop() // the gated batch finishes without reporting
}

func TestWarmupReturnsFirstError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	sl := []*echoSlot{{}, {warmErr: boom}}
	s := NewScheduler(SchedulerConfig{Plugin: "test", BatchSize: 1, NoDevice: errNoDevice}, sl, 1)
	require.ErrorIs(t, s.Warmup(t.Context()), boom)
	ran := false
	require.NoError(t, s.Exclusive(t.Context(), func() error { ran = true; return nil }))
	assert.True(t, ran)
	s.Stop()
}

// groupSlot records the data of each batch it runs and echoes it.
type groupSlot struct {
	testSlot
	mu   sync.Mutex
	seen [][]byte
}

func (s *groupSlot) Run(b *Batch) {
	if b.Warmup() || !b.Enter() {
		return
	}
	defer b.Leave()
	var kinds []byte
	for _, sm := range b.Samples {
		kinds = append(kinds, sm.Data[0])
		b.Complete(sm.ID, sm.Data)
	}
	s.mu.Lock()
	s.seen = append(s.seen, kinds)
	s.mu.Unlock()
}

// TestInferGroups: with Group, samples that may not share a batch (here
// by their first byte, as shapes) run in batches of their own, each run
// cut by the batch size, and every sample is answered with its data.
func TestInferGroups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		kinds []byte
		want  [][]byte
	}{
		{name: "one group", kinds: []byte{7, 7, 7, 7, 7}, want: [][]byte{{7, 7, 7}, {7, 7}}},
		{name: "interleaved", kinds: []byte{2, 1, 2, 1, 2, 3}, want: [][]byte{{1, 1}, {2, 2, 2}, {3}}},
		{name: "runs cut by the batch size", kinds: []byte{1, 1, 1, 1, 2, 2, 2, 2, 2},
			want: [][]byte{{1, 1}, {1, 1}, {2, 2, 2}, {2, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sl := []*groupSlot{{}}
			s := NewScheduler(SchedulerConfig{Plugin: "test", BatchSize: 3, NoDevice: errNoDevice,
				Group: func(a, b *sdk.Sample) int { return int(a.Data[0]) - int(b.Data[0]) }}, sl, 1)
			var q sdk.Query
			for i, k := range tt.kinds {
				q.Samples = append(q.Samples, sdk.Sample{ID: uint64(100 + i), Index: uint64(i), Data: []byte{k, byte(i)}})
			}
			r := newRecorder()
			require.NoError(t, s.Infer(t.Context(), q, r))
			r.close()
			s.Stop()
			assert.ElementsMatch(t, tt.want, sl[0].seen)
			require.Len(t, r.done, len(tt.kinds))
			for i, k := range tt.kinds {
				assert.Equal(t, []byte{k, byte(i)}, r.done[uint64(100+i)])
			}
		})
	}
}
