package accel

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSlot is a slot whose device failure the test sets.
type testSlot struct {
	id     int
	failed atomic.Bool
}

func (s *testSlot) Failed() bool { return s.failed.Load() }
func (s *testSlot) Run(*Batch)   {}

func slots(n int) []*testSlot {
	out := make([]*testSlot, n)
	for i := range out {
		out[i] = &testSlot{id: i}
	}
	return out
}

// TestHoldAllSeesSlotsRetire checks that HoldAll (Close, LoadSamples,
// Warmup) stops waiting for a slot that retires while it waits: the slot's
// device failed in the middle of a batch, so it never comes back.
func TestHoldAllSeesSlotsRetire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// failed lists which in-flight slots' devices fail before they
		// return; the others come back healthy.
		failed   []bool
		wantHeld int
	}{
		{name: "one in flight fails", failed: []bool{true}, wantHeld: 1},
		{name: "one fails, one returns", failed: []bool{true, false}, wantHeld: 2},
		{name: "every in-flight slot fails", failed: []bool{true, true}, wantHeld: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				n := 1 + len(tt.failed)
				p := NewPool(slots(n), n, ErrRuntimeMissing)
				// Take the in-flight slots out, as Infer does.
				var inFlight []*testSlot
				for range tt.failed {
					s, err := p.Take(nil)
					require.NoError(t, err)
					inFlight = append(inFlight, s)
				}
				done := make(chan []*testSlot)
				go func() {
					held, err := p.HoldAll(nil)
					assert.NoError(t, err)
					done <- held
				}()
				synctest.Wait()
				select {
				case <-done:
					t.Fatal("HoldAll returned while slots were in flight")
				default:
				}
				for i, s := range inFlight {
					s.failed.Store(tt.failed[i])
					p.Give(s)
				}
				assert.Len(t, <-done, tt.wantHeld)
			})
		})
	}
}

func TestHoldAllCanceled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := NewPool(slots(2), 1, ErrRuntimeMissing)
		s, err := p.Take(nil)
		require.NoError(t, err)
		cancel := make(chan struct{})
		done := make(chan error)
		go func() {
			_, err := p.HoldAll(cancel)
			done <- err
		}()
		synctest.Wait()
		close(cancel)
		require.ErrorIs(t, <-done, errCanceled)
		// The slot HoldAll had taken is back: with s returned, all are idle.
		p.Give(s)
		held, err := p.HoldAll(nil)
		require.NoError(t, err)
		assert.Len(t, held, 2)
	})
}

func TestTakeRotatesOverDevicesAndRetires(t *testing.T) {
	t.Parallel()
	// Two devices with three slots each, listed device by device.
	all := slots(6)
	p := NewPool(all, 2, ErrRuntimeMissing)
	var order []int
	for range all {
		s, err := p.Take(nil)
		require.NoError(t, err)
		order = append(order, s.id)
	}
	assert.Equal(t, []int{0, 3, 1, 4, 2, 5}, order, "consecutive takes alternate devices")
	for _, s := range all {
		s.failed.Store(true)
		p.Give(s)
	}
	_, err := p.Take(nil)
	require.ErrorIs(t, err, ErrRuntimeMissing, "the pool's no-device error once every slot retired")
}
