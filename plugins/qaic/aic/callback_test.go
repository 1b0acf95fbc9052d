package aic

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// TestCompletionByCallback checks completion=callback: batches in flight
// wait on the runtime's callback, not in a thread blocked in
// qaicExecObjWaitForCompletion, and every output is right.
func TestCompletionByCallback(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"wait", "callback"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			f := newFakeQAic(t, 2, 16)
			b := newLoaded(t, f, qpc(1, 4, "input x 4", "output y 4"),
				map[string]string{"completion": mode, "activations": "2", "set_size": "2"})
			f.Gate(true)
			t.Cleanup(func() { f.Gate(false) })
			c := acceltest.NewRecorder()
			done := make(chan error, 1)
			go func() { done <- b.Infer(t.Context(), samplesOf(8, 4, true, true), c) }()
			require.Eventually(t, func() bool { n, _ := f.Kernels(); return n == 8 }, 10*time.Second, time.Millisecond,
				"eight batches in flight, one per exec object")
			if mode == "wait" {
				require.Eventually(t, func() bool { return f.waiting() == 8 }, 10*time.Second, time.Millisecond,
					"one blocked thread per batch in flight")
			} else {
				assert.Zero(t, f.waiting(), "no thread blocked in qaicExecObjWaitForCompletion")
				assert.Equal(t, 8, int(f.Call("fakeqaic_events")), "one event per exec object")
			}
			f.Gate(false)
			require.NoError(t, <-done)
			out, failed, _ := c.Results()
			assert.Empty(t, failed)
			for i := range uint64(8) {
				assert.Equal(t, acceltest.SampleBytes(i, 4), out[acceltest.IDBase+i])
			}
			require.NoError(t, b.Close())
			assert.Zero(t, int(f.Call("fakeqaic_events")), "Close releases the events")
		})
	}
}

func TestCompletionByCallbackNeedsTheEventType(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 1, 16)
	b, err := New(f.config())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	err = b.Load(t.Context(), sdk.Model{Bytes: qpc(1, 4, "input x 4", "output y 4"),
		Options: map[string]string{"completion": "callback", "event_type": "7"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "qaicCreateEvent: QS_INVAL")
	assert.Contains(t, err.Error(), "event_type 7")
	assert.Equal(t, liveObjects{}, f.live())
}
