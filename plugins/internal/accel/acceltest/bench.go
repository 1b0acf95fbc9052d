package acceltest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// Discard is an sdk.Completer that drops results, so that a benchmark
// measures the backend and not the recorder. A failed sample panics.
type Discard struct{}

var _ sdk.Completer = Discard{}

// Complete drops the output.
func (Discard) Complete(uint64, []byte, int64) {}

// FirstToken drops the token.
func (Discard) FirstToken(uint64, []byte) {}

// Fail panics: a benchmark's samples must not fail.
func (Discard) Fail(id uint64, err error) { panic(fmt.Sprintf("sample %d failed: %v", id, err)) }

// Inferer is what ClosedLoop drives: an sdk.Backend, or a plugin's loaded
// model.
type Inferer interface {
	Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error
}

// ClosedLoop runs b.N queries through one goroutine per query of queries,
// as the host does with MaxInFlight callers: each sends its next query as
// soon as the previous one returns.
func ClosedLoop(b *testing.B, bk Inferer, queries []sdk.Query) {
	work := make(chan struct{})
	var wg sync.WaitGroup
	for _, q := range queries {
		wg.Go(func() {
			for range work {
				if err := bk.Infer(b.Context(), q, Discard{}); err != nil {
					panic(err)
				}
			}
		})
	}
	b.ReportAllocs()
	for b.Loop() {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
}
