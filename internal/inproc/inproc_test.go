package inproc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// openLoaded opens e with its model and the samples of indices loaded.
func openLoaded(t *testing.T, e *echo, indices ...uint64) host.Backend {
	t.Helper()
	b, err := Open(t.Context(), e)
	require.NoError(t, err)
	require.NoError(t, b.Load(t.Context(), host.Model{Bytes: []byte("m")}))
	samples := make([]host.Sample, len(indices))
	for i, idx := range indices {
		samples[i] = host.Sample{Index: idx}
	}
	require.NoError(t, b.LoadSamples(t.Context(), samples))
	return b
}

// echo is a test backend: each sample completes with its data (or its
// 8-byte index when it has none); the sample index picks a fault.
type echo struct {
	maxBatch, maxInFlight int
	running, peak         atomic.Int32
	biggest               atomic.Int32
	flushes               atomic.Int32
	closed                atomic.Int32
}

const (
	idxPanic   = 1000 + iota // panic in Infer
	idxForget                // return without completing
	idxError                 // return an error
	idxUnknown               // complete an id not in the query
	idxTwice                 // complete twice
	idxFail                  // fail the sample
)

func (e *echo) Info() sdk.Info {
	return sdk.Info{Name: "echo", Version: "1", MaxBatch: e.maxBatch, MaxInFlight: e.maxInFlight}
}
func (e *echo) Load(context.Context, sdk.Model) error                 { return nil }
func (e *echo) LoadSamples(context.Context, []sdk.LoadedSample) error { return nil }
func (e *echo) UnloadSamples(context.Context, []uint64) error         { return nil }
func (e *echo) Flush(context.Context) error {
	if e.running.Load() != 0 {
		return errors.New("flush during infer")
	}
	e.flushes.Add(1)
	return nil
}
func (e *echo) Close() error { e.closed.Add(1); return nil }

func (e *echo) Infer(_ context.Context, q sdk.Query, c sdk.Completer) error {
	n := e.running.Add(1)
	defer e.running.Add(-1)
	for p := e.peak.Load(); n > p && !e.peak.CompareAndSwap(p, n); p = e.peak.Load() {
	}
	for b := e.biggest.Load(); int32(len(q.Samples)) > b && !e.biggest.CompareAndSwap(b, int32(len(q.Samples))); b = e.biggest.Load() {
	}
	time.Sleep(time.Millisecond) // let calls overlap
	for _, s := range q.Samples {
		switch s.Index {
		case idxPanic:
			panic("boom")
		case idxForget:
			continue
		case idxError:
			return errors.New("device lost")
		case idxUnknown:
			c.Complete(s.ID+100, nil, 0)
		case idxTwice:
			c.Complete(s.ID, nil, 0)
			c.Complete(s.ID, nil, 0)
		case idxFail:
			c.Fail(s.ID, errors.New("bad input"))
		default:
			data := s.Data
			if len(data) == 0 {
				data = binary.LittleEndian.AppendUint64(nil, s.Index)
			}
			c.FirstToken(s.ID, data[:1])
			c.Complete(s.ID, data, 2)
		}
	}
	return nil
}

var (
	_ sdk.Flusher      = (*echo)(nil)
	_ sdk.SampleLoader = (*echo)(nil)
)

type recorder struct {
	mu    sync.Mutex
	done  map[uint64]host.Completion
	first map[uint64]bool
	dups  int
}

func newRecorder() *recorder {
	return &recorder{done: map[uint64]host.Completion{}, first: map[uint64]bool{}}
}

func (r *recorder) Complete(batch []host.Completion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range batch {
		if _, ok := r.done[c.ID]; ok {
			r.dups++
		}
		c.Data = bytes.Clone(c.Data)
		r.done[c.ID] = c
	}
}

func (r *recorder) FirstTokens(batch []host.Completion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range batch {
		r.first[c.ID] = true
	}
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.done)
}

func (r *recorder) get(id uint64) host.Completion {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done[id]
}

func recs(firstID, index uint64, n int) []abi.IssueRecord {
	out := make([]abi.IssueRecord, n)
	for i := range out {
		out[i] = abi.IssueRecord{ID: firstID + uint64(i), Index: index + uint64(i), Flags: abi.FlagWantOutput}
	}
	return out
}

func TestEcho(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := &echo{maxBatch: 4, maxInFlight: 3}
	b, err := Open(ctx, e)
	require.NoError(t, err)
	info := b.Info()
	assert.Equal(t, host.TransportInProcess, info.Transport)
	assert.True(t, info.Capabilities.Has(abi.CapFlush|abi.CapSampleLoader))
	assert.False(t, info.Capabilities.Has(abi.CapWarmup))
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Load(ctx, host.Model{Bytes: []byte("m")}))
	data := []byte("sample seven")
	samples := []host.Sample{{Index: 7, Data: data}}
	for i := range uint64(50) {
		samples = append(samples, host.Sample{Index: 100 + i})
	}
	require.NoError(t, b.LoadSamples(ctx, samples))
	data[0] = 'X' // the host copied it
	require.NoError(t, b.Warmup(ctx))
	require.NoError(t, b.Issue(ctx, recs(1, 7, 1)))
	require.NoError(t, b.Issue(ctx, recs(2, 100, 50)))
	require.NoError(t, b.Flush(ctx))
	assert.Equal(t, 51, rec.count(), "Flush waits for the Infer calls before it")
	assert.Equal(t, "sample seven", string(rec.get(1).Data))
	assert.Equal(t, binary.LittleEndian.AppendUint64(nil, 100), rec.get(2).Data)
	assert.Equal(t, int64(2), rec.get(2).NTokens)
	assert.Len(t, rec.first, 51)
	assert.Equal(t, int32(4), e.biggest.Load(), "queries split at MaxBatch")
	assert.LessOrEqual(t, e.peak.Load(), int32(3), "at most MaxInFlight calls at once")
	assert.Equal(t, int32(1), e.flushes.Load())
	require.NoError(t, b.UnloadSamples(ctx, []uint64{7}))
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	assert.Equal(t, int32(1), e.closed.Load())
	assert.ErrorIs(t, b.Err(), host.ErrClosed)
	assert.ErrorIs(t, b.Issue(ctx, recs(1, 1, 1)), host.ErrClosed)
}

func TestSampleFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		index  uint64
		status abi.Code
		msg    string
	}{
		{name: "panic", index: idxPanic, status: abi.Internal, msg: "backend panicked in Infer: boom"},
		{name: "forgotten", index: idxForget, status: abi.Internal, msg: `backend "echo" returned from Infer without completing sample id 1`},
		{name: "error", index: idxError, status: abi.Internal, msg: "device lost"},
		{name: "failed", index: idxFail, status: abi.Internal, msg: "bad input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := openLoaded(t, &echo{maxInFlight: 1}, tt.index)
			defer b.Close()
			rec := newRecorder()
			b.SetHandler(rec)
			require.NoError(t, b.Issue(t.Context(), recs(1, tt.index, 1)))
			require.NoError(t, b.Close())
			c := rec.get(1)
			assert.Equal(t, tt.status, c.Status)
			assert.Contains(t, string(c.Data), tt.msg)
			assert.Equal(t, 1, rec.count())
		})
	}
}

func TestProtocolViolations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		index uint64
		msg   string
	}{
		{name: "unknown id", index: idxUnknown, msg: `plugin "echo": issue: broke the plugin ABI: backend "echo": Complete for sample id 101, which is not in this Infer call`},
		{name: "twice", index: idxTwice, msg: `plugin "echo": issue: broke the plugin ABI: backend "echo": Complete for sample id 1, which was completed before`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := openLoaded(t, &echo{}, tt.index)
			rec := newRecorder()
			b.SetHandler(rec)
			require.NoError(t, b.Issue(t.Context(), recs(1, tt.index, 1)))
			<-b.Done()
			require.ErrorIs(t, b.Err(), host.ErrProtocol)
			assert.EqualError(t, b.Err(), tt.msg)
			require.NoError(t, b.Close())
			assert.Zero(t, rec.dups)
		})
	}
}
