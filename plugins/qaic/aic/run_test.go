package aic

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHoldAllSeesExecObjectsDropped checks that holdAll (Warmup) stops
// waiting for an exec object dropped while it waits: its device failed in
// the middle of a batch, so it never comes back.
func TestHoldAllSeesExecObjectsDropped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// failed lists which in-flight exec objects' devices fail before
		// they come back; the others come back healthy.
		failed   []bool
		wantHeld int
	}{
		{name: "one in flight fails", failed: []bool{true}, wantHeld: 1},
		{name: "one fails, one returns", failed: []bool{true, false}, wantHeld: 2},
		{name: "every in-flight one fails", failed: []bool{true, true}, wantHeld: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				n := 1 + len(tt.failed)
				var execs []*execObj
				for i := range n {
					execs = append(execs, &execObj{act: &activation{dev: &device{qid: int32(i)}}})
				}
				p := newExecPool(execs, n)
				var inFlight []*execObj
				for range tt.failed {
					e, err := p.take(nil)
					require.NoError(t, err)
					inFlight = append(inFlight, e)
				}
				done := make(chan []*execObj)
				go func() {
					held, err := p.holdAll(nil)
					assert.NoError(t, err)
					done <- held
				}()
				synctest.Wait()
				select {
				case <-done:
					t.Fatal("holdAll returned while exec objects were in flight")
				default:
				}
				for i, e := range inFlight {
					if tt.failed[i] {
						e.act.dev.failed.Store(true)
					}
					p.give(e)
				}
				assert.Len(t, <-done, tt.wantHeld)
			})
		})
	}
}
