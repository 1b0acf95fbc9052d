package hostquery

import (
	"context"
	"fmt"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
)

// Runner is a backend's handler that issues the same batch again and
// again: samples 0 to n-1 of those loaded, each wanting its output.
// One query at a time.
type Runner struct {
	b      host.Backend
	recs   []abi.IssueRecord
	done   chan struct{}
	left   int
	nextID uint64
	failed error
}

var _ host.Handler = (*Runner)(nil)

// New makes b's handler a Runner of batches of n samples.
func New(b host.Backend, n int) *Runner {
	r := &Runner{b: b, done: make(chan struct{}, 1)}
	for i := range n {
		r.recs = append(r.recs, abi.IssueRecord{Index: uint64(i), Flags: abi.FlagWantOutput})
	}
	b.SetHandler(r)
	return r
}

// Query issues the batch under new sample ids and returns when every
// sample completed: the first failed sample's error, or the backend's.
func (r *Runner) Query(ctx context.Context) error {
	for i := range r.recs {
		r.nextID++
		r.recs[i].ID = r.nextID
	}
	r.left = len(r.recs)
	if err := r.b.Issue(ctx, r.recs); err != nil {
		return err
	}
	select {
	case <-r.done:
	case <-r.b.Done():
		return r.b.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
	return r.failed
}

// Complete implements host.Handler.
func (r *Runner) Complete(batch []host.Completion) {
	for _, c := range batch {
		if c.Status != abi.OK && r.failed == nil {
			r.failed = fmt.Errorf("sample %d: %s: %s", c.ID, c.Status, c.Data)
		}
	}
	if r.left -= len(batch); r.left == 0 {
		r.done <- struct{}{}
	}
}

// FirstTokens implements host.Handler (the batch's samples answer whole).
func (*Runner) FirstTokens([]host.Completion) {}
