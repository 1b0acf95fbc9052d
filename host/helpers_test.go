package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
)

// recorder is a Handler that keeps a copy of everything delivered.
type recorder struct {
	mu     sync.Mutex
	done   map[uint64]Completion
	dups   []uint64
	first  map[uint64]Completion
	early  []uint64 // first tokens reported after their completion
	notify chan struct{}
}

func newRecorder() *recorder {
	return &recorder{done: map[uint64]Completion{}, first: map[uint64]Completion{}, notify: make(chan struct{}, 1)}
}

func (r *recorder) Complete(batch []Completion) {
	r.mu.Lock()
	for _, c := range batch {
		if _, ok := r.done[c.ID]; ok {
			r.dups = append(r.dups, c.ID)
			continue
		}
		c.Data = bytes.Clone(c.Data)
		r.done[c.ID] = c
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *recorder) FirstTokens(batch []Completion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range batch {
		if _, ok := r.done[c.ID]; ok {
			r.early = append(r.early, c.ID)
		}
		c.Data = bytes.Clone(c.Data)
		r.first[c.ID] = c
	}
}

// wait blocks until n samples completed; the deadline only keeps a broken
// test from hanging.
func (r *recorder) wait(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		got := len(r.done)
		r.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-r.notify:
		case <-deadline:
			require.FailNow(t, "completions missing", "%d of %d", got, n)
		}
	}
}

func (r *recorder) get(id uint64) (Completion, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.done[id]
	return c, ok
}

// waitDone waits for the backend to end; the deadline only keeps a broken
// test from hanging.
func waitDone(t *testing.T, b Backend) {
	t.Helper()
	select {
	case <-b.Done():
	case <-time.After(30 * time.Second):
		require.FailNow(t, "backend did not fail")
	}
}

// records builds n issue records with ids firstID.. and indices index..
func records(firstID, index uint64, n int) []abi.IssueRecord {
	recs := make([]abi.IssueRecord, n)
	for i := range recs {
		recs[i] = abi.IssueRecord{ID: firstID + uint64(i), Index: index + uint64(i), Flags: abi.FlagWantOutput}
	}
	return recs
}

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "wasm", name))
	require.NoError(t, err)
	return b
}

// logSink collects log records.
type logSink struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r.Clone())
	return nil
}
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *logSink) WithGroup(string) slog.Handler      { return s }

func (s *logSink) messages(level slog.Level) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.recs {
		if r.Level == level {
			out = append(out, r.Message)
		}
	}
	return out
}

// assertFailed checks how b ended: Issue refused with the same error, a
// *PluginError naming plugin and wrapping wantErr, with every msg in its
// text, no sample completed twice, and a clean Close.
func assertFailed(t *testing.T, b Backend, rec *recorder, plugin string, wantErr error, msgs []string) {
	t.Helper()
	assert.ErrorIs(t, b.Issue(t.Context(), records(1000, 0, 1)), wantErr, "later samples are refused; the caller keeps them")
	assert.Empty(t, rec.dups)
	err := b.Err()
	require.ErrorIs(t, err, wantErr)
	var pe *PluginError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, plugin, pe.Plugin)
	for _, m := range msgs {
		assert.Contains(t, err.Error(), m)
	}
	require.NoError(t, b.Close(), "closing a failed backend is clean")
	assert.ErrorIs(t, b.Err(), wantErr, "the failure outlives Close")
}

// chain is a handler that issues the next one-sample query from the
// completion of the last, as the LoadGen's SingleStream does, n times.
type chain struct {
	b    Backend
	n    int
	seen int
	err  error
	done chan struct{}
}

func (c *chain) Complete(batch []Completion) {
	for range batch {
		c.seen++
		if c.seen == c.n {
			close(c.done)
			return
		}
		if err := c.b.Issue(context.Background(), []abi.IssueRecord{{ID: uint64(c.seen + 1), Index: 1}}); err != nil {
			c.err = err
		}
	}
}

func (c *chain) FirstTokens([]Completion) {}

func runChain(t *testing.T, b Backend, n int) {
	t.Helper()
	c := &chain{b: b, n: n, done: make(chan struct{})}
	b.SetHandler(c)
	require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: 1, Index: 1}}))
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		require.FailNow(t, "chain stuck", "%d of %d", c.seen, n)
	}
	require.NoError(t, c.err)
}
