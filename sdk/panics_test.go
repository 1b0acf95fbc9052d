//go:build !wasip1

package sdk

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// panicky panics in every Infer call.
type panicky struct{ nullBackend }

func (*panicky) Infer(context.Context, Query, Completer) error { panic("boom") }

// failures keeps the messages of failed samples.
type failures struct {
	mu   sync.Mutex
	msgs map[uint64]string
	all  chan struct{}
	want int
}

func (f *failures) Complete(id uint64, code abi.Code, data []byte, _ int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs[id] = code.String() + ": " + string(data)
	if len(f.msgs) == f.want {
		close(f.all)
	}
}
func (*failures) FirstToken(uint64, []byte) {}
func (*failures) Flushed(abi.Code, string)  {}
func (*failures) Violation(uint64, error)   {}

// TestPanicStackLoggedOnce: a backend panicking on every Infer call gets
// its stack logged once and its samples failed with a short message, so
// that neither the log nor the completions grow by a stack per sample.
func TestPanicStackLoggedOnce(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	lw := &lockedWriter{w: &log}
	srv := NewServer(&panicky{nullBackend{maxBatch: 16, maxInFlight: 2}}, ServerConfig{Logger: slog.New(slog.NewTextHandler(lw, nil))})
	defer srv.Close()
	require.Zero(t, srv.Load(t.Context(), &backendv1.LoadRequest{}).GetStatus().GetCode())
	samples := make([]LoadedSample, benchSamples)
	for i := range samples {
		samples[i] = LoadedSample{Index: uint64(i), Data: []byte{byte(i)}}
	}
	require.Zero(t, srv.LoadSamples(t.Context(), samples, nil).GetStatus().GetCode())

	const queries, perQuery = 40, 64
	out := &failures{msgs: map[uint64]string{}, all: make(chan struct{}), want: queries * perQuery}
	sess, err := srv.OpenSession(t.Context(), out)
	require.NoError(t, err)
	for q := range queries {
		recs := make([]byte, 0, perQuery*abi.IssueRecordSize)
		for i := range perQuery {
			recs = abi.AppendIssueRecord(recs, abi.IssueRecord{ID: uint64(q*perQuery + i), Index: uint64(i)})
		}
		require.NoError(t, sess.Issue(recs))
	}
	select {
	case <-out.all:
	case <-time.After(30 * time.Second):
		require.FailNow(t, "samples missing")
	}
	sess.End()

	for id, msg := range out.msgs {
		require.Equal(t, "INTERNAL: backend panicked in Infer: boom", msg, "sample %d", id)
	}
	lw.mu.Lock()
	text := log.String()
	lw.mu.Unlock()
	assert.Equal(t, 1, strings.Count(text, "stack="), "one stack in the log:\n%s", text)
	assert.Contains(t, text, "panics_test.go", "the stack reaches the panicking Infer")
	lines := strings.Count(text, "\n")
	assert.LessOrEqual(t, lines, maxLoggedPanics+1, "a bounded number of log lines for %d panics", queries*perQuery/16)
	assert.Contains(t, text, "further panics are not logged")
}
