package hostquery

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
)

// fakeBackend completes each issued sample from another goroutine, with
// status, one sample per Complete call; the methods Runner does not call
// are the nil embedded interface's.
type fakeBackend struct {
	host.Backend
	h      host.Handler
	status abi.Code
	issued [][]abi.IssueRecord
	done   chan struct{}
	err    error
}

func (f *fakeBackend) SetHandler(h host.Handler) { f.h = h }
func (f *fakeBackend) Done() <-chan struct{}     { return f.done }
func (f *fakeBackend) Err() error                { return f.err }

func (f *fakeBackend) Issue(_ context.Context, recs []abi.IssueRecord) error {
	f.issued = append(f.issued, append([]abi.IssueRecord(nil), recs...))
	go func() {
		for _, r := range recs {
			f.h.Complete([]host.Completion{{ID: r.ID, Status: f.status}})
		}
	}()
	return nil
}

func TestRunnerQueries(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{done: make(chan struct{})}
	r := New(f, 3)
	require.Same(t, r, f.h, "New makes the runner the backend's handler")
	ctx := context.Background()
	require.NoError(t, r.Query(ctx))
	require.NoError(t, r.Query(ctx))
	require.Len(t, f.issued, 2)
	for q, recs := range f.issued {
		require.Len(t, recs, 3)
		for i, rec := range recs {
			assert.Equal(t, uint64(i), rec.Index)
			assert.Equal(t, uint64(q*3+i+1), rec.ID, "fresh ids each query")
			assert.Equal(t, abi.FlagWantOutput, rec.Flags)
		}
	}
}

func TestRunnerFailures(t *testing.T) {
	t.Parallel()
	f := &fakeBackend{done: make(chan struct{}), status: abi.Internal}
	err := New(f, 2).Query(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sample 1")

	dead := &stuckBackend{fakeBackend: &fakeBackend{done: make(chan struct{}), err: errors.New("plugin crashed")}}
	close(dead.done)
	require.EqualError(t, New(dead, 1).Query(context.Background()), "plugin crashed", "the backend's end answers")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stuck := &stuckBackend{fakeBackend: &fakeBackend{done: make(chan struct{})}}
	require.ErrorIs(t, New(stuck, 1).Query(ctx), context.Canceled, "the caller's context ends the wait")
}

// stuckBackend accepts issues and never completes them.
type stuckBackend struct{ *fakeBackend }

func (*stuckBackend) Issue(context.Context, []abi.IssueRecord) error { return nil }
