//go:build !wasip1

package sdk

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// recordingSender keeps what the outbox sends, one line per item:
// "first 1", "done 1 OK 3" (id, code, data bytes), "flushed OK",
// "error INTERNAL"; sizes has each completions message's data size.
type recordingSender struct {
	mu    sync.Mutex
	items []string
	msgs  int
	sizes []int
	fail  error
}

func (r *recordingSender) Send(m *backendv1.PluginMessage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.msgs++
	switch k := m.GetKind().(type) {
	case *backendv1.PluginMessage_Completions:
		r.sizes = append(r.sizes, len(k.Completions.GetData()))
		r.records("done", k.Completions)
	case *backendv1.PluginMessage_FirstTokens:
		r.records("first", k.FirstTokens)
	case *backendv1.PluginMessage_Flushed:
		r.items = append(r.items, "flushed "+abi.Code(k.Flushed.GetStatus().GetCode()).String())
	case *backendv1.PluginMessage_Error:
		r.items = append(r.items, "error "+abi.Code(k.Error.GetStatus().GetCode()).String())
	}
	return nil
}

func (r *recordingSender) records(what string, c *backendv1.Completions) {
	cs, err := abi.ParseCompletions(c.GetRecords(), c.GetData())
	if err != nil {
		r.items = append(r.items, "malformed: "+err.Error())
		return
	}
	for c := range cs.All {
		if what == "first" {
			r.items = append(r.items, fmt.Sprintf("first %d", c.ID))
			continue
		}
		r.items = append(r.items, fmt.Sprintf("done %d %s %d", c.ID, c.Status, len(c.Data)))
	}
}

func (r *recordingSender) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.items...)
}

func TestOutboxOrder(t *testing.T) {
	t.Parallel()
	// Everything is queued before the sender starts, so it goes out in one
	// collect: the order is the outbox's, whatever the timing.
	tests := []struct {
		name string
		do   func(o *outbox, l *lane)
		want []string
	}{
		{
			name: "completions before the flush answer",
			do: func(o *outbox, l *lane) {
				l.complete(1, abi.OK, nil, 0)
				l.complete(2, abi.OK, []byte("ab"), 0)
				o.Flushed(abi.OK, "")
			},
			want: []string{"done 1 OK 0", "done 2 OK 2", "flushed OK"},
		},
		{
			// The flush answer is queued before the completion, which still
			// goes first: it may only be late, never early.
			name: "event queued first",
			do: func(o *outbox, l *lane) {
				o.Flushed(abi.OK, "")
				l.complete(1, abi.OK, nil, 0)
			},
			want: []string{"done 1 OK 0", "flushed OK"},
		},
		{
			name: "first tokens before completions",
			do: func(o *outbox, l *lane) {
				l.complete(1, abi.OK, []byte("x"), 1)
				l.firstToken(2, []byte("y"))
			},
			want: []string{"first 2", "done 1 OK 1"},
		},
		{
			name: "outside a lane",
			do: func(o *outbox, l *lane) {
				o.Complete(7, abi.InvalidArgument, []byte("not loaded"), 0)
				l.complete(1, abi.OK, nil, 0)
				o.FirstToken(3, []byte("z"))
			},
			want: []string{"first 3", "done 7 INVALID_ARGUMENT 10", "done 1 OK 0"},
		},
		{
			name: "oversized output fails the sample",
			do: func(o *outbox, l *lane) {
				l.complete(1, abi.OK, make([]byte, o.maxOutput+1), 0)
			},
			want: []string{"done 1 RESOURCE_EXHAUSTED 81"},
		},
		{
			name: "violation",
			do: func(o *outbox, l *lane) {
				o.Violation(1, errors.New("twice"))
			},
			want: []string{"error INTERNAL"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := newOutbox(1<<20, 0)
			var mu sync.Mutex
			l := o.newLane(&mu)
			mu.Lock()
			tt.do(o, l)
			mu.Unlock()
			o.close()
			rec := &recordingSender{}
			require.NoError(t, o.run(t.Context(), rec))
			assert.Equal(t, tt.want, rec.got())
		})
	}
}

func TestOutboxSplitsMessages(t *testing.T) {
	t.Parallel()
	o := newOutbox(1<<20, 0)
	o.maxData = 100
	var mu sync.Mutex
	l := o.newLane(&mu)
	mu.Lock()
	for id := range uint64(10) {
		l.complete(id, abi.OK, make([]byte, 30), 0)
	}
	l.complete(10, abi.OK, make([]byte, 250), 0) // alone over maxData: sent alone
	mu.Unlock()
	o.close()
	rec := &recordingSender{}
	require.NoError(t, o.run(t.Context(), rec))
	assert.Equal(t, []int{90, 90, 90, 30, 250}, rec.sizes)
	assert.Len(t, rec.got(), 11)
}

func TestOutboxCapsRecordsPerMessage(t *testing.T) {
	t.Parallel()
	o := newOutbox(1<<20, 0)
	o.maxRecords = 4
	var mu sync.Mutex
	l := o.newLane(&mu)
	mu.Lock()
	for id := range uint64(10) {
		l.complete(id, abi.OK, nil, 0)
	}
	mu.Unlock()
	o.close()
	rec := &recordingSender{}
	require.NoError(t, o.run(t.Context(), rec))
	assert.Equal(t, 3, rec.msgs, "10 completions, at most 4 per message")
	assert.Len(t, rec.got(), 10)
}

func TestOutboxLanes(t *testing.T) {
	t.Parallel()
	o := newOutbox(1<<20, 0)
	var mu1, mu2 sync.Mutex
	l1, l2 := o.newLane(&mu1), o.newLane(&mu2)
	l1.complete(1, abi.OK, []byte("a"), 0)
	l2.complete(2, abi.OK, []byte("bb"), 0)
	l1.complete(3, abi.OK, []byte("ccc"), 0)
	o.close()
	rec := &recordingSender{}
	require.NoError(t, o.run(t.Context(), rec))
	// Both lanes share one message, each lane's completions in order.
	assert.Equal(t, []string{"done 1 OK 1", "done 3 OK 3", "done 2 OK 2"}, rec.got())
	assert.Equal(t, 1, rec.msgs)
	assert.True(t, l1.batch.empty())
	assert.True(t, l2.batch.empty())
}

func TestOutboxWakesSender(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		o := newOutbox(1<<20, 0)
		var mu sync.Mutex
		l := o.newLane(&mu)
		rec := &recordingSender{}
		done := make(chan error, 1)
		go func() { done <- o.run(t.Context(), rec) }()
		synctest.Wait()
		assert.Empty(t, rec.got(), "nothing to send yet")

		mu.Lock()
		l.complete(1, abi.OK, nil, 0)
		mu.Unlock()
		synctest.Wait()
		assert.Equal(t, []string{"done 1 OK 0"}, rec.got(), "a completion wakes the idle sender")

		o.Flushed(abi.OK, "")
		synctest.Wait()
		assert.Equal(t, []string{"done 1 OK 0", "flushed OK"}, rec.got())

		o.close()
		require.NoError(t, <-done)
	})
}

func TestOutboxSenderStops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fail    error
		cancel  bool
		wantErr error
	}{
		{name: "send fails", fail: errors.New("stream gone"), wantErr: errors.New("stream gone")},
		{name: "context ends", cancel: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := newOutbox(1<<20, 0)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.cancel {
				cancel()
			} else {
				o.Complete(1, abi.OK, nil, 0)
			}
			err := o.run(ctx, &recordingSender{fail: tt.fail})
			assert.EqualError(t, err, tt.wantErr.Error())
		})
	}
}

// TestSessionFlushAfterCompletions drives the whole plugin side of a
// subprocess session: every query's completions reach the sender before
// the answer to the flush issued after it, each id exactly once.
func TestSessionFlushAfterCompletions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		maxBatch, maxInFlight int
		queries, perQuery     int
	}{
		{name: "one call per query", maxBatch: 0, maxInFlight: 1, queries: 3, perQuery: 50},
		{name: "split across workers", maxBatch: 7, maxInFlight: 4, queries: 5, perQuery: 100},
		{name: "single samples", maxBatch: 1, maxInFlight: 2, queries: 40, perQuery: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := NewServer(&nullBackend{maxBatch: tt.maxBatch, maxInFlight: tt.maxInFlight}, ServerConfig{})
			t.Cleanup(func() { srv.Close() })
			require.Zero(t, srv.Load(t.Context(), &backendv1.LoadRequest{}).GetStatus().GetCode())
			require.Zero(t, srv.LoadSamples(t.Context(), []LoadedSample{{Index: 0, Data: []byte("s")}}, nil).GetStatus().GetCode())
			out := newOutbox(1<<20, 0)
			sess, err := srv.OpenSession(t.Context(), out)
			require.NoError(t, err)
			rec := &recordingSender{}
			sent := make(chan error, 1)
			go func() { sent <- out.run(t.Context(), rec) }()

			var want []string
			id := uint64(0)
			for range tt.queries {
				var recs []byte
				for range tt.perQuery {
					id++
					recs = abi.AppendIssueRecord(recs, abi.IssueRecord{ID: id, Index: 0, Flags: abi.FlagWantOutput})
					want = append(want, fmt.Sprintf("done %d OK 1", id))
				}
				require.NoError(t, sess.Issue(recs))
			}
			require.NoError(t, sess.Flush())
			sess.End()
			out.close()
			require.NoError(t, <-sent)

			got := rec.got()
			require.NotEmpty(t, got)
			assert.Equal(t, "flushed OK", got[len(got)-1], "the flush answer comes last")
			assert.ElementsMatch(t, want, got[:len(got)-1])
		})
	}
}

// TestOutboxFirstTokensKeepCompletionsOffTheRing: the host reads the
// completion ring and the messages on different goroutines, so once a
// backend reports a first token (whether or not its Info said
// FirstTokens) its completions go in messages, behind the first tokens.
func TestOutboxFirstTokensKeepCompletionsOffTheRing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		tokens   bool
		want     []string
		wantRing int
	}{
		{name: "no first tokens: the ring", want: nil, wantRing: 2},
		{name: "a first token: messages", tokens: true, want: []string{"first 2", "done 1 OK 0", "done 2 OK 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			words := make([]uint64, abi.RingFileSize(64, 64)/8)
			mem := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
			require.NoError(t, abi.InitRingFile(mem, 64, 64))
			_, completion, err := abi.OpenRings(mem)
			require.NoError(t, err)

			o := newOutbox(1<<20, 0)
			o.ring.Store(completion)
			var mu sync.Mutex
			l := o.newLane(&mu)
			mu.Lock()
			l.complete(1, abi.OK, nil, 0)
			if tt.tokens {
				l.firstToken(2, []byte("y"))
			}
			l.complete(2, abi.OK, nil, 0)
			mu.Unlock()
			o.close()
			rec := &recordingSender{}
			require.NoError(t, o.run(t.Context(), rec))
			assert.Equal(t, tt.want, rec.got())
			n, err := completion.Drain(64, func([]byte) error { return nil })
			require.NoError(t, err)
			assert.Equal(t, tt.wantRing, n, "completions in the ring")
		})
	}
}
