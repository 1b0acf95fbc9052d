package trt

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHoldAllSeesLanesRetire checks that holdAll (Close, LoadSamples,
// Warmup) stops waiting for a lane that retires while it waits: the lane's
// device failed in the middle of a batch, so it never comes back.
func TestHoldAllSeesLanesRetire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// failed lists which in-flight lanes' devices fail before they
		// return; the others come back healthy.
		failed   []bool
		wantHeld int
	}{
		{name: "one in flight fails", failed: []bool{true}, wantHeld: 1},
		{name: "one fails, one returns", failed: []bool{true, false}, wantHeld: 2},
		{name: "every in-flight lane fails", failed: []bool{true, true}, wantHeld: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				n := 1 + len(tt.failed)
				p := newLanePool(n)
				for i := range n {
					p.free <- &lane{dev: &device{ordinal: i}, id: i}
				}
				// Take the in-flight lanes out, as Infer does.
				var inFlight []*lane
				for range tt.failed {
					l, err := p.acquire(nil)
					require.NoError(t, err)
					inFlight = append(inFlight, l)
				}
				done := make(chan []*lane)
				go func() {
					held, err := p.holdAll(nil)
					assert.NoError(t, err)
					done <- held
				}()
				synctest.Wait()
				select {
				case <-done:
					t.Fatal("holdAll returned while lanes were in flight")
				default:
				}
				for i, l := range inFlight {
					if tt.failed[i] {
						l.dev.failed.Store(true)
					}
					p.release(l)
				}
				held := <-done
				assert.Len(t, held, tt.wantHeld)
			})
		})
	}
}

func TestHoldAllCanceled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := newLanePool(2)
		p.free <- &lane{dev: &device{}}
		p.free <- &lane{dev: &device{}}
		l, err := p.acquire(nil)
		require.NoError(t, err)
		cancel := make(chan struct{})
		done := make(chan error)
		go func() {
			_, err := p.holdAll(cancel)
			done <- err
		}()
		synctest.Wait()
		close(cancel)
		require.ErrorIs(t, <-done, errCanceled)
		// The lane holdAll had taken is back: with l returned, all are idle.
		p.release(l)
		held, err := p.holdAll(nil)
		require.NoError(t, err)
		assert.Len(t, held, 2)
	})
}
