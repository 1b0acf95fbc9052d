package trt

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

const (
	planSimple = "input x float32 -1x4 max=8"
	outSimple  = "output y float32 -1x4"
)

func TestInferComputesOutputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		plan     []string
		ins      []int
		outs     []int
		opts     map[string]string
		load     bool // LoadSamples first (else data travels with the query)
		samples  int
		wantData bool
		// cudaVersion, when set, is the runtime version the fake reports;
		// 12.8 and 13 gather loaded samples with cudaMemcpyBatchAsync when
		// a batch is not one contiguous run (reversed asks for that).
		cudaVersion int
		reversed    bool
		wantBatched bool
	}{
		{name: "dynamic batch, data in query", plan: []string{planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, samples: 13, wantData: true},
		{name: "samples on device", plan: []string{planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, load: true, samples: 21, wantData: true,
			opts: map[string]string{"start_from_device": "true"}},
		{name: "samples on device, CUDA 12.8 batch copies", plan: []string{planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, load: true, samples: 21, wantData: true, cudaVersion: 12080,
			reversed: true, wantBatched: true, opts: map[string]string{"start_from_device": "true", "batch_copies": "true"}},
		{name: "samples on device, CUDA 13 batch copies", plan: []string{planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, load: true, samples: 21, wantData: true, cudaVersion: 13000,
			reversed: true, wantBatched: true, opts: map[string]string{"start_from_device": "true", "batch_copies": "true"}},
		{name: "batch copies off by default", plan: []string{planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, load: true, samples: 21, wantData: true, cudaVersion: 13000,
			reversed: true, opts: map[string]string{"start_from_device": "true"}},
		{name: "samples in pinned host memory", plan: []string{planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, load: true, samples: 21, wantData: true,
			opts: map[string]string{"start_from_device": "false"}},
		{name: "pinned samples out of order, batch copies", plan: []string{planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, load: true, samples: 21, wantData: true, cudaVersion: 13000,
			reversed: true, wantBatched: true, opts: map[string]string{"batch_copies": "true"}},
		// A static engine always runs its full batch of 4: short batches are padded.
		{name: "static batch", plan: []string{"input x uint8 4x6", "output y uint8 4x6"},
			ins: []int{6}, outs: []int{6}, samples: 9, wantData: true},
		// Two inputs are packed back to back in a sample; outputs are concatenated.
		{name: "two inputs two outputs", plan: []string{"input a uint8 -1x3 max=8", "input b uint8 -1x5 max=8",
			"output y uint8 -1x8", "output z uint8 -1x2"},
			ins: []int{3, 5}, outs: []int{8, 2}, load: true, samples: 11, wantData: true},
		{name: "several profiles and streams", plan: []string{"profiles 2", planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, samples: 30, wantData: true,
			opts: map[string]string{"streams": "3", "devices": "0,1"}},
		// Without WantOutput the backend completes with nil and skips the copy back.
		{name: "no output wanted", plan: []string{planSimple, outSimple},
			ins: []int{16}, outs: []int{16}, samples: 5, wantData: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 2, 1<<26)
			if tt.cudaVersion != 0 {
				f.setVersion(tt.cudaVersion)
			}
			b := newBackend(t, f, fakePlan(tt.plan...), tt.opts)
			size := 0
			for _, n := range tt.ins {
				size += n
			}
			idx := acceltest.Seq(tt.samples)
			if tt.load {
				var ls []sdk.LoadedSample
				for _, i := range idx {
					ls = append(ls, sdk.LoadedSample{Index: i, Data: acceltest.SampleBytes(i, size)})
				}
				require.NoError(t, b.LoadSamples(t.Context(), ls))
			}
			rec := acceltest.NewRecorder()
			q := idx
			if tt.reversed {
				q = slices.Clone(idx)
				slices.Reverse(q)
			}
			require.NoError(t, b.Infer(t.Context(), acceltest.Query(q, size, !tt.load, tt.wantData), rec))
			out, failed, _ := rec.Results()
			assert.Empty(t, failed)
			require.Len(t, out, tt.samples)
			for _, i := range idx {
				if tt.wantData {
					assert.Equal(t, acceltest.EchoOutput(acceltest.SampleBytes(i, size), tt.ins, tt.outs), out[1000+i], "sample %d", i)
				} else {
					assert.Empty(t, out[1000+i], "sample %d", i)
				}
			}
			assert.Equal(t, tt.wantBatched, f.batchCopies() > 0, "cudaMemcpyBatchAsync used")
		})
	}
}

func TestBatchesFollowProfileAndOption(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		plan    []string
		opts    map[string]string
		samples int
		want    []int
	}{
		// 20 samples with a profile maximum of 8 make three balanced batches.
		{name: "profile maximum", plan: []string{planSimple, outSimple}, samples: 20, want: []int{7, 7, 6}},
		{name: "batch_size option", plan: []string{planSimple, outSimple}, samples: 10,
			opts: map[string]string{"batch_size": "4"}, want: []int{4, 3, 3}},
		{name: "one sample", plan: []string{planSimple, outSimple}, samples: 1, want: []int{1}},
		// A static engine enqueues its fixed batch even for fewer samples.
		{name: "static engine pads", plan: []string{"input x uint8 8x2", "output y uint8 8x2"}, samples: 3,
			want: []int{8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<26)
			opts := map[string]string{"streams": "1"}
			for k, v := range tt.opts {
				opts[k] = v
			}
			b := newBackend(t, f, fakePlan(tt.plan...), opts)
			rec := acceltest.NewRecorder()
			require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(tt.samples), modelOf(t, b).layout.inBytes, true, true), rec))
			assert.Equal(t, tt.want, f.batches())
		})
	}
}

// TestStreamsRunConcurrently holds every kernel at the fake's gate: the
// batches of one query must reach all 2×3 streams at once.
func TestStreamsRunConcurrently(t *testing.T) {
	t.Parallel()
	f := newFake(t, 2, 1<<26)
	f.setDelay(1000, 0)
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"streams": "3", "batch_size": "2"})
	f.Gate(true)
	t.Cleanup(func() { f.Gate(false) })
	rec := acceltest.NewRecorder()
	done := make(chan error, 1)
	go func() { done <- b.Infer(t.Context(), acceltest.Query(acceltest.Seq(12), 16, true, true), rec) }()
	require.Eventually(t, func() bool { r, _ := f.Kernels(); return r == 6 }, 10*time.Second, time.Millisecond,
		"six batches should wait at the gate, one per stream")
	f.Gate(false)
	require.NoError(t, <-done)
	out, failed, _ := rec.Results()
	assert.Len(t, out, 12)
	assert.Empty(t, failed)
	_, peak := f.Kernels()
	assert.Equal(t, 6, peak)
	perDevice := map[int]int{}
	for _, s := range f.streams() {
		if s.ops > 0 {
			perDevice[s.dev]++
		}
	}
	assert.Equal(t, map[int]int{0: 3, 1: 3}, perDevice, "every stream of both devices ran work")
	assert.Equal(t, 6, b.Info().MaxInFlight, "after Load, Info counts the options' 3 streams × 2 devices")
}

// TestCompletionsFollowEvents runs a long and a short batch on two streams:
// the short one, enqueued second, completes first.
func TestCompletionsFollowEvents(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<26)
	f.setDelay(0, int64(20*time.Millisecond))
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"streams": "2"})
	f.Gate(true)
	t.Cleanup(func() { f.Gate(false) })
	rec := acceltest.NewRecorder()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		assert.NoError(t, b.Infer(t.Context(), acceltest.Query([]uint64{0, 1, 2, 3, 4, 5, 6, 7}, 16, true, true), rec))
	}()
	require.Eventually(t, func() bool { r, _ := f.Kernels(); return r == 1 }, 10*time.Second, time.Millisecond)
	go func() {
		defer wg.Done()
		assert.NoError(t, b.Infer(t.Context(), acceltest.Query([]uint64{9}, 16, true, true), rec))
	}()
	require.Eventually(t, func() bool { r, _ := f.Kernels(); return r == 2 }, 10*time.Second, time.Millisecond)
	f.Gate(false)
	wg.Wait()
	_, _, order := rec.Results()
	require.Len(t, order, 9)
	assert.Equal(t, uint64(1009), order[0], "the 1-sample batch (20ms) finishes before the 8-sample one (160ms)")
}

func TestEnqueueFailureFailsItsBatchOnly(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<26)
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"streams": "1", "batch_size": "2"})
	f.failEnqueue(2)
	rec := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(6), 16, true, true), rec))
	out, failed, _ := rec.Results()
	assert.Len(t, out, 4)
	require.Len(t, failed, 2)
	for _, id := range []uint64{1002, 1003} {
		var se *ShimError
		require.ErrorAs(t, failed[id], &se, "sample %d", id)
		assert.Contains(t, se.Message, "injected enqueue failure")
		assert.Contains(t, failed[id].Error(), "device 0 stream 0")
	}
	// The stream is still usable.
	rec = acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(3), 16, true, true), rec))
	out, failed, _ = rec.Results()
	assert.Len(t, out, 3)
	assert.Empty(t, failed)
}

func TestFailedDeviceIsDropped(t *testing.T) {
	t.Parallel()
	f := newFake(t, 2, 1<<26)
	f.setDelay(1000, 0)
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"streams": "1", "batch_size": "1"})
	f.failDevice(1)

	// Lanes are handed out interleaved: sample 0 runs on device 0, sample 1
	// on device 1, which fails with a sticky launch failure.
	rec := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(2), 16, true, true), rec))
	out, failed, _ := rec.Results()
	assert.Len(t, out, 1)
	require.Len(t, failed, 1)
	var de *DeviceError
	require.ErrorAs(t, failed[1001], &de)
	assert.Equal(t, 1, de.Device)
	assert.Equal(t, abi.Unavailable, sdk.CodeOf(failed[1001]))
	var ce *CUDAError
	require.ErrorAs(t, failed[1001], &ce)
	assert.Equal(t, 719, ce.Code)

	// Later queries run on device 0 only.
	rec = acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(5), 16, true, true), rec))
	out, failed, _ = rec.Results()
	assert.Len(t, out, 5)
	assert.Empty(t, failed)

	// With both devices failed nothing is left.
	f.failDevice(0)
	rec = acceltest.NewRecorder()
	_ = b.Infer(t.Context(), acceltest.Query(acceltest.Seq(1), 16, true, true), rec)
	rec = acceltest.NewRecorder()
	err := b.Infer(t.Context(), acceltest.Query(acceltest.Seq(3), 16, true, true), rec)
	require.ErrorIs(t, err, ErrNoDevice)
	_, failed, _ = rec.Results()
	assert.Len(t, failed, 3)
}

func TestInferAbandonsOnCancel(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<26)
	f.setDelay(1000, 0)
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"streams": "1"})
	f.Gate(true)
	t.Cleanup(func() { f.Gate(false) })
	ctx, cancel := context.WithCancel(t.Context())
	rec := acceltest.NewRecorder()
	done := make(chan error, 1)
	go func() { done <- b.Infer(ctx, acceltest.Query(acceltest.Seq(16), 16, true, true), rec) }()
	require.Eventually(t, func() bool { r, _ := f.Kernels(); return r == 1 }, 10*time.Second, time.Millisecond)
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
	_, _, order := rec.Results()
	// The second batch was never dispatched: it failed at once; the first is
	// abandoned, and nothing reaches the completer after Infer returned.
	assert.Len(t, order, 8)
	f.Gate(false)
	require.NoError(t, b.Close())
	_, _, after := rec.Results()
	assert.Len(t, after, 8)
}

// TestDeviceTimeout holds a kernel past the watchdog: its samples fail, the
// device is dropped, and the other device carries on.
func TestDeviceTimeout(t *testing.T) {
	t.Parallel()
	f := newFake(t, 2, 1<<26)
	f.setDelay(1000, 0)
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"timeout": "20ms", "streams": "1"})
	f.Gate(true)
	t.Cleanup(func() { f.Gate(false) })
	rec := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(2), 16, true, true), rec))
	_, failed, _ := rec.Results()
	require.Len(t, failed, 2)
	require.ErrorIs(t, failed[1000], ErrDeviceTimeout)
	var de *DeviceError
	require.ErrorAs(t, failed[1000], &de)
	assert.Equal(t, 0, de.Device)

	f.Gate(false)
	rec = acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(4), 16, true, true), rec))
	out, failed, _ := rec.Results()
	assert.Len(t, out, 4, "device 1 runs what device 0 no longer can")
	assert.Empty(t, failed)

	// The timed-out batch's work may still be queued on device 0's stream:
	// Close waits for it before freeing what it uses.
	require.NoError(t, b.Close())
	assert.Equal(t, liveObjects{}, f.live())
}

// TestCloseAfterDeviceTimeout closes the backend while a batch that timed
// out still has work queued on its stream (a kernel held at the fake's
// gate, then its output copy and event record). Freeing the lane's buffers
// or event then would be a use after free on a GPU; the fake refuses it and
// newFake's cleanup fails the test.
func TestCloseAfterDeviceTimeout(t *testing.T) {
	t.Parallel()
	// timeOut runs one batch into the 20ms watchdog on device 0 with the
	// gate closed, so its work stays queued.
	timeOut := func(t *testing.T, f *fake, b *Backend, withData bool) {
		f.setDelay(1000, 0)
		f.Gate(true)
		t.Cleanup(func() { f.Gate(false) })
		rec := acceltest.NewRecorder()
		require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(2), 16, withData, true), rec))
		_, failed, _ := rec.Results()
		require.Len(t, failed, 2)
		require.ErrorIs(t, failed[1000], ErrDeviceTimeout)
	}
	opts := map[string]string{"timeout": "20ms", "streams": "1"}

	t.Run("waits for the stream to drain", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 1, 1<<26)
		b := newBackend(t, f, fakePlan(planSimple, outSimple), opts)
		timeOut(t, f, b, true)
		closed := make(chan error, 1)
		go func() { closed <- b.Close() }()
		require.Eventually(t, func() bool { return f.busyQueries() > 0 }, 10*time.Second, time.Millisecond,
			"Close should find the stream busy while the kernel waits at the gate")
		f.Gate(false)
		require.NoError(t, <-closed)
		assert.Equal(t, liveObjects{}, f.live(), "everything freed once the stream drained")
	})

	t.Run("abandons a device that does not drain", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 2, 1<<26)
		b := newBackend(t, f, fakePlan(planSimple, outSimple), opts)
		timeOut(t, f, b, true)
		modelOf(t, b).settleGrace = 50 * time.Millisecond
		err := b.Close()
		require.ErrorIs(t, err, ErrDeviceTimeout)
		assert.Contains(t, err.Error(), "device 0 stream 0")
		assert.Contains(t, err.Error(), "memory allocated until the process exits")
		// Device 0 keeps its stream, event, two device and two pinned
		// buffers, engine, context and the runtime; device 1 is freed.
		assert.Equal(t, liveObjects{allocs: 4, streams: 1, events: 1, runtimes: 1, engines: 1, contexts: 1}, f.live())
		require.NoError(t, b.Close(), "Close is idempotent")
	})

	t.Run("unloading defers the hung device's sample arena", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 2, 1<<26)
		b := newBackend(t, f, fakePlan(planSimple, outSimple),
			map[string]string{"timeout": "20ms", "streams": "1", "start_from_device": "true"})
		var ls []sdk.LoadedSample
		for _, i := range acceltest.Seq(4) {
			ls = append(ls, sdk.LoadedSample{Index: i, Data: acceltest.SampleBytes(i, 16)})
		}
		before := f.live().allocs
		require.NoError(t, b.LoadSamples(t.Context(), ls))
		require.Equal(t, before+2, f.live().allocs, "one arena per device")
		timeOut(t, f, b, false)
		require.NoError(t, b.UnloadSamples(t.Context(), acceltest.Seq(4)))
		assert.Equal(t, before+1, f.live().allocs, "device 1's arena is freed, device 0's waits for its stream")
		f.Gate(false)
		require.NoError(t, b.Close())
		assert.Equal(t, liveObjects{}, f.live())
	})

	t.Run("unloading defers the pinned sample arena", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 2, 1<<26)
		b := newBackend(t, f, fakePlan(planSimple, outSimple), opts)
		before := f.live().allocs
		require.NoError(t, b.LoadSamples(t.Context(), acceltest.Loaded(acceltest.Seq(4), 16)))
		require.Equal(t, before+1, f.live().allocs, "one pinned arena")
		timeOut(t, f, b, false)
		require.NoError(t, b.UnloadSamples(t.Context(), acceltest.Seq(4)))
		assert.Equal(t, before+1, f.live().allocs, "the hung stream may still read the pinned arena")
		f.Gate(false)
		require.NoError(t, b.Close())
		assert.Equal(t, liveObjects{}, f.live())
	})
}

// TestRulesCompliantByDefault checks the placement and copies the rules
// ask for: samples in pinned host memory, loaded untimed; one copy per
// input for a contiguous batch, one per sample otherwise; outputs copied
// back to host memory even when no sample wants its bytes, unless
// end_on_device says otherwise.
func TestRulesCompliantByDefault(t *testing.T) {
	t.Parallel()
	const size = 16
	tests := []struct {
		name    string
		opts    map[string]string
		query   []uint64
		want    bool
		wantH2D int64
		wantD2H int64
	}{
		{name: "contiguous batch", query: []uint64{2, 3, 4, 5}, want: true, wantH2D: 1, wantD2H: 1},
		{name: "scattered batch", query: []uint64{5, 1, 7, 2}, want: true, wantH2D: 4, wantD2H: 1},
		{name: "outputs copied back when not wanted", query: []uint64{2, 3}, wantH2D: 1, wantD2H: 1},
		{name: "end_on_device skips unwanted outputs", opts: map[string]string{"end_on_device": "true"},
			query: []uint64{2, 3}, wantH2D: 1, wantD2H: 0},
		{name: "end_on_device still copies wanted outputs", opts: map[string]string{"end_on_device": "true"},
			query: []uint64{2, 3}, want: true, wantH2D: 1, wantD2H: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<20)
			opts := map[string]string{"streams": "1"}
			maps.Copy(opts, tt.opts)
			b := newBackend(t, f, fakePlan(planSimple, outSimple), opts)
			before := f.live().allocs
			require.NoError(t, b.LoadSamples(t.Context(), acceltest.Loaded(acceltest.Seq(8), size)))
			assert.Equal(t, before+1, f.live().allocs, "one pinned arena for the call")
			p, ok := modelOf(t, b).samples.place(0)
			require.True(t, ok)
			assert.False(t, p.a.onDevice())
			h2d, d2h := f.asyncCopies(hostToDevice), f.asyncCopies(deviceToHost)
			rec := acceltest.NewRecorder()
			require.NoError(t, b.Infer(t.Context(), acceltest.Query(tt.query, size, false, tt.want), rec))
			out, failed, _ := rec.Results()
			assert.Empty(t, failed)
			for _, i := range tt.query {
				if tt.want {
					assert.Equal(t, acceltest.SampleBytes(i, size), out[acceltest.IDBase+i])
				} else {
					assert.Empty(t, out[acceltest.IDBase+i])
				}
			}
			assert.Equal(t, tt.wantH2D, f.asyncCopies(hostToDevice)-h2d, "host-to-device copies")
			assert.Equal(t, tt.wantD2H, f.asyncCopies(deviceToHost)-d2h, "device-to-host copies")
		})
	}
}

func TestSamplesOnDevice(t *testing.T) {
	t.Parallel()
	const size = 16
	load := func(t *testing.T, b *Backend, n int) error {
		var ls []sdk.LoadedSample
		for _, i := range acceltest.Seq(n) {
			ls = append(ls, sdk.LoadedSample{Index: i, Data: acceltest.SampleBytes(i, size)})
		}
		return b.LoadSamples(t.Context(), ls)
	}
	t.Run("arena per device, freed on unload", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 2, 1<<20)
		b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"start_from_device": "true"})
		before := f.live().allocs
		require.NoError(t, load(t, b, 100))
		assert.Equal(t, before+2, f.live().allocs, "one sample arena on each device")
		require.NoError(t, b.UnloadSamples(t.Context(), acceltest.Seq(99)))
		assert.Equal(t, before+2, f.live().allocs, "the arena lives while one sample uses it")
		require.NoError(t, b.UnloadSamples(t.Context(), []uint64{99}))
		assert.Equal(t, before, f.live().allocs)
	})
	t.Run("too large for device", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 1, 1<<14)
		b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"start_from_device": "true"})
		err := load(t, b, 2000)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "do not fit")
	})
	t.Run("auto falls back to pinned host memory", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 1, 1<<14)
		b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"start_from_device": "auto"})
		before := f.live().allocs
		require.NoError(t, load(t, b, 2000))
		assert.Equal(t, before+1, f.live().allocs, "one pinned arena, no device memory")
		rec := acceltest.NewRecorder()
		require.NoError(t, b.Infer(t.Context(), acceltest.Query([]uint64{5, 1999}, size, false, true), rec))
		out, _, _ := rec.Results()
		assert.Equal(t, acceltest.SampleBytes(1999, size), out[1999+1000])
	})
	t.Run("wrong size rejected", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 1, 1<<20)
		b := newBackend(t, f, fakePlan(planSimple, outSimple), nil)
		err := b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 1, Data: make([]byte, 15)}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "15 bytes")
	})
	t.Run("missing data fails the sample", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, 1, 1<<20)
		b := newBackend(t, f, fakePlan(planSimple, outSimple), nil)
		rec := acceltest.NewRecorder()
		q := acceltest.Query([]uint64{1, 2}, size, true, true)
		q.Samples[1].Data = nil
		require.NoError(t, b.Infer(t.Context(), q, rec))
		out, failed, _ := rec.Results()
		assert.Len(t, out, 1)
		require.Contains(t, failed, uint64(1002))
		assert.Contains(t, failed[1002].Error(), "no data")
		assert.Equal(t, []int{2}, f.batches())

		// A batch with no valid sample is not run at all.
		rec = acceltest.NewRecorder()
		require.NoError(t, b.Infer(t.Context(), acceltest.Query([]uint64{3, 4}, size, false, true), rec))
		_, failed, _ = rec.Results()
		assert.Len(t, failed, 2)
		assert.Equal(t, []int{2}, f.batches())
	})
}

// TestDynamicProfilesGetOwnContexts checks the engine copies: a profile
// serves one execution context at a time.
func TestDynamicProfilesGetOwnContexts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		plan     []string
		streams  string
		engines  int32
		contexts int32
	}{
		{name: "one profile, three streams", plan: []string{planSimple, outSimple}, streams: "3", engines: 3, contexts: 3},
		{name: "two profiles, three streams", plan: []string{"profiles 2", planSimple, outSimple}, streams: "3",
			engines: 2, contexts: 3},
		{name: "static engine shares one copy", plan: []string{"input x uint8 4x4", "output y uint8 4x4"},
			streams: "3", engines: 1, contexts: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<26)
			b := newBackend(t, f, fakePlan(tt.plan...), map[string]string{"streams": tt.streams})
			live := f.live()
			assert.Equal(t, tt.engines, live.engines)
			assert.Equal(t, tt.contexts, live.contexts)
			rec := acceltest.NewRecorder()
			require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(24), modelOf(t, b).layout.inBytes, true, true), rec))
			_, failed, _ := rec.Results()
			assert.Empty(t, failed)
		})
	}
}

func TestWarmupRunsEveryStream(t *testing.T) {
	t.Parallel()
	f := newFake(t, 2, 1<<26)
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"streams": "2", "batch_size": "5"})
	require.NoError(t, b.Warmup(t.Context()))
	assert.Equal(t, []int{5, 5, 5, 5}, f.batches())
}

func TestCloseReleasesEverything(t *testing.T) {
	t.Parallel()
	f := newFake(t, 2, 1<<26)
	b, err := New(f.config())
	require.NoError(t, err)
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: fakePlan("profiles 2", planSimple, outSimple),
		Options: map[string]string{"streams": "3"}}))
	require.NoError(t, b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 7, Data: acceltest.SampleBytes(7, 16)}}))
	require.NoError(t, b.Infer(t.Context(), acceltest.Query([]uint64{7}, 16, false, true), acceltest.NewRecorder()))
	require.ErrorIs(t, b.Load(t.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple)}), ErrLoaded)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "Close is idempotent")
	assert.Equal(t, liveObjects{}, f.live(), "no allocation, stream, event, engine or context left")
	require.ErrorIs(t, b.Infer(t.Context(), acceltest.Query([]uint64{7}, 16, true, true), acceltest.NewRecorder()), ErrClosed)
	require.ErrorIs(t, b.Load(t.Context(), sdk.Model{}), ErrClosed)
}

func TestInfoListsDevices(t *testing.T) {
	t.Parallel()
	f := newFake(t, 3, 1<<30)
	cfg := f.config()
	cfg.Streams = 4
	// The fake's GPUs are at PCI bus 0x3b + ordinal; sysfs knows the
	// nodes of two of them.
	cfg.SysfsRoot = acceltest.Sysfs(t, acceltest.PCIFunction{Address: "0fa0:3b:00.0", NUMANode: "0"},
		acceltest.PCIFunction{Address: "0fa0:3d:00.0", NUMANode: "1"})
	b, err := New(cfg)
	require.NoError(t, err)
	info := b.Info()
	assert.Equal(t, "tensorrt", info.Name)
	assert.Equal(t, 12, info.MaxInFlight)
	require.Len(t, info.Devices, 3)
	assert.Equal(t, sdk.Device{ID: 2, Name: "Fake GPU 2", Kind: "gpu", MemoryBytes: 1 << 30,
		Driver: "CUDA runtime 12.4, driver 12.4, sm_90, 132 SMs", NUMANode: 1, HasNUMANode: true,
		PCIBusID: "0fa0:3d:00.0", UUID: "GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae02"}, info.Devices[2])
	assert.False(t, info.Devices[1].HasNUMANode, "sysfs does not say")
	assert.Equal(t, "0fa0:3c:00.0", info.Devices[1].PCIBusID)

	cfg.Devices = []int{1}
	b, err = New(cfg)
	require.NoError(t, err)
	assert.Equal(t, 4, b.Info().MaxInFlight)
}

func TestMissingRuntimeNamesLibrary(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<20)
	tests := []struct {
		name     string
		cudart   []string
		shim     []string
		library  string
		remedies []string
	}{
		{name: "no libcudart", cudart: []string{"/nonexistent/libcudart.so.12"}, shim: []string{f.shimPath},
			library: "libcudart", remedies: []string{"nvidia-cuda-runtime-cu12", "cudart="}},
		{name: "no shim", cudart: []string{f.cudartPath}, shim: []string{"/nonexistent/libmlph_trt.so"},
			library: "libmlph_trt.so", remedies: []string{"make tensorrt-shim", "shim="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			cfg.CudartPaths, cfg.ShimPaths = tt.cudart, tt.shim
			b, err := New(cfg)
			require.NoError(t, err)
			err = b.Load(t.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple)})
			require.ErrorIs(t, err, ErrRuntimeMissing)
			assert.Equal(t, abi.FailedPrecondition, sdk.CodeOf(err), "the host gets a status it can explain")
			var le *LibraryError
			require.ErrorAs(t, err, &le)
			assert.Contains(t, le.Library, tt.library)
			assert.Contains(t, err.Error(), "/nonexistent/")
			for _, r := range tt.remedies {
				assert.Contains(t, err.Error(), r)
			}
		})
	}
	t.Run("info without cudart", func(t *testing.T) {
		t.Parallel()
		cfg := DefaultConfig()
		cfg.CudartPaths = []string{"/nonexistent/libcudart.so.12"}
		b, err := New(cfg)
		require.NoError(t, err)
		assert.Empty(t, b.Info().Devices)
		assert.Contains(t, b.Info().Description, "libcudart")
	})
}

func TestLoadRejectsBadEngines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		plan []byte
		opts map[string]string
		want string
		// code, when set, is the status code the host must get.
		code abi.Code
	}{
		{name: "not a plan", plan: []byte("garbage"), want: "not a faketrt plan"},
		{name: "dynamic inner dimension without a range", plan: fakePlan("input x float32 -1x-1 max=4", outSimple),
			want: "needs max= for each dynamic dimension"},
		{name: "dynamic beyond a static batch", plan: fakePlan("input x float32 4x-1 max=4x8", "output y float32 4x8"),
			want: "only engines with a dynamic batch may vary in other dimensions"},
		{name: "cuda_graphs with varying inputs", plan: fakePlan("input x float32 -1x-1 max=4x8", "output y float32 -1x-1"),
			opts: map[string]string{"cuda_graphs": "true"}, want: "cuda_graphs: not for an engine whose inputs vary beyond the batch"},
		{name: "varying inputs and a host without a schema", plan: fakePlan("input x float32 -1x-1 max=4x8", "output y float32 -1x-1"),
			want: "the host declared no data set tensors"},
		{name: "batch_size above profile", plan: fakePlan(planSimple, outSimple),
			opts: map[string]string{"batch_size": "9"}, want: "exceeds the engine's maximum batch 8"},
		{name: "no outputs", plan: fakePlan(planSimple), want: "at least one of each"},
		{name: "mixed batch kinds", plan: fakePlan(planSimple, "input z float32 4x4", outSimple),
			want: "mixes static and dynamic"},
		{name: "unknown device", plan: fakePlan(planSimple, outSimple),
			opts: map[string]string{"devices": "5"}, want: "device 5 selected"},
		{name: "unknown option", plan: fakePlan(planSimple, outSimple),
			opts: map[string]string{"stream": "2"}, want: "unknown option", code: abi.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<20)
			b, err := New(f.config())
			require.NoError(t, err)
			err = b.Load(t.Context(), sdk.Model{Bytes: tt.plan, Options: tt.opts})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			if tt.code != abi.OK {
				assert.Equal(t, tt.code, sdk.CodeOf(err))
			}
			require.NoError(t, b.Close())
			assert.Equal(t, liveObjects{}, f.live(), "a failed Load leaves nothing behind")
		})
	}
}

func TestLoadEngineSource(t *testing.T) {
	t.Parallel()
	acceltest.ModelSource{
		Option: "engine", Model: fakePlan(planSimple, outSimple), SampleSize: 16,
		New: func(t *testing.T) sdk.Backend {
			b, err := New(newFake(t, 1, 1<<20).config())
			require.NoError(t, err)
			return b
		},
		Nothing: "no engine", NotLoaded: ErrNotLoaded,
	}.Test(t)
}
