package trt

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// checkEcho runs q on b and checks every output echoes its sample.
func checkEcho(t *testing.T, b *Backend, indices []uint64, size int, withData bool) {
	t.Helper()
	rec := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), acceltest.Query(indices, size, withData, true), rec))
	out, failed, _ := rec.Results()
	require.Empty(t, failed)
	for _, i := range indices {
		assert.Equal(t, acceltest.SampleBytes(i, size), out[acceltest.IDBase+i], "sample %d", i)
	}
}

func reversed(n int) []uint64 {
	s := acceltest.Seq(n)
	slices.Reverse(s)
	return s
}

// TestGatherKernel checks gather=kernel: a batch that is not one contiguous
// run takes one launch of the gather kernel per input, from pinned host
// memory, device memory, the lane's staging buffer, or a mix, and no
// per-sample copies.
func TestGatherKernel(t *testing.T) {
	t.Parallel()
	twoInputs := []string{"input a uint8 -1x3 max=8", "input b uint8 -1x5 max=8", "output y uint8 -1x8",
		"output z uint8 -1x2"}
	tests := []struct {
		name        string
		plan        []string
		opts        map[string]string
		size        int
		load        bool
		query       []uint64
		withData    bool
		wantKernels int64
	}{
		{name: "pinned, scattered", plan: []string{planSimple, outSimple}, size: 16, load: true,
			query: reversed(8), wantKernels: 1},
		{name: "on device, scattered", plan: []string{planSimple, outSimple}, size: 16, load: true,
			opts: map[string]string{"start_from_device": "true"}, query: reversed(8), wantKernels: 1},
		// Samples sent with the query are staged in one run: one copy.
		{name: "data with the query", plan: []string{planSimple, outSimple}, size: 16, query: reversed(8),
			withData: true, wantKernels: 0},
		{name: "loaded and sent mixed", plan: []string{planSimple, outSimple}, size: 16, load: true,
			query: []uint64{9, 2, 10, 5}, withData: true, wantKernels: 1},
		{name: "contiguous runs take copies", plan: []string{planSimple, outSimple}, size: 16, load: true,
			query: acceltest.Seq(8), wantKernels: 0},
		{name: "one launch per input", plan: twoInputs, size: 8, load: true, query: []uint64{6, 1, 3},
			wantKernels: 2},
		// Not 16-byte rows: the kernel copies byte by byte (the fake, by row).
		{name: "odd row size", plan: []string{"input x uint8 -1x7 max=8", "output y uint8 -1x7"}, size: 7,
			load: true, query: []uint64{3, 0, 5}, wantKernels: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<22)
			opts := map[string]string{"gather": "kernel", "streams": "1"}
			maps.Copy(opts, tt.opts)
			b := newBackend(t, f, fakePlan(tt.plan...), opts)
			assert.Equal(t, int32(1), f.live().modules, "the kernel is loaded once per device")
			if tt.load {
				require.NoError(t, b.LoadSamples(t.Context(), acceltest.Loaded(acceltest.Seq(8), tt.size)))
			}
			h2d := f.asyncCopies(hostToDevice)
			_, before := f.launches()
			rec := acceltest.NewRecorder()
			require.NoError(t, b.Infer(t.Context(), acceltest.Query(tt.query, tt.size, tt.withData, true), rec))
			out, failed, _ := rec.Results()
			require.Empty(t, failed)
			for _, i := range tt.query {
				ins, outs := []int{tt.size}, []int{tt.size}
				if len(tt.plan) == 4 {
					ins, outs = []int{3, 5}, []int{8, 2}
				}
				assert.Equal(t, acceltest.EchoOutput(acceltest.SampleBytes(i, tt.size), ins, outs),
					out[acceltest.IDBase+i], "sample %d", i)
			}
			_, after := f.launches()
			assert.Equal(t, tt.wantKernels, after-before, "gather kernel launches")
			if tt.wantKernels > 0 {
				assert.Zero(t, f.asyncCopies(hostToDevice)-h2d, "no per-sample copies")
			}
			require.NoError(t, b.Close())
			assert.Zero(t, f.live().modules, "Close unloads the kernel")
		})
	}
}

func TestGatherKernelNeedsTheDriver(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<20)
	b, err := New(f.config())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	err = b.Load(t.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple),
		Options: map[string]string{"gather": "kernel", "cuda_driver": "/nonexistent/libcuda.so.1"}})
	require.ErrorIs(t, err, ErrRuntimeMissing)
	assert.Contains(t, err.Error(), "libcuda")
	assert.Contains(t, err.Error(), "gather=copies")
}

// TestCUDAGraphs checks cuda_graphs: Warmup captures a graph per lane and
// batch size; later batches replay them instead of calling TensorRT's
// enqueue; Close destroys them.
func TestCUDAGraphs(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<22)
	b := newBackend(t, f, fakePlan("input x float32 -1x4 max=4", outSimple),
		map[string]string{"cuda_graphs": "true", "streams": "2"})
	require.NoError(t, b.Warmup(t.Context()))
	// Two lanes × batch sizes 1 to 4.
	assert.Equal(t, int32(8), f.live().graphExecs)
	enqueues := len(f.batches())
	graphs, _ := f.launches()
	require.NoError(t, b.LoadSamples(t.Context(), acceltest.Loaded(acceltest.Seq(16), 16)))
	for _, n := range []int{4, 3, 1, 2} {
		checkEcho(t, b, acceltest.Seq(n), 16, false)
	}
	after, _ := f.launches()
	assert.Equal(t, int64(4), after-graphs, "every batch replays a graph")
	assert.Len(t, f.batches(), enqueues, "no TensorRT enqueue after warm-up")
	require.NoError(t, b.Close())
	assert.Equal(t, liveObjects{}, f.live())
}

// TestCUDAGraphsCapturedOnFirstUse: without Warmup, the first batch of a
// size runs TensorRT's enqueue and captures; the next one replays.
func TestCUDAGraphsCapturedOnFirstUse(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<22)
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"cuda_graphs": "true", "streams": "1"})
	checkEcho(t, b, acceltest.Seq(3), 16, true)
	assert.Equal(t, int32(1), f.live().graphExecs)
	graphs, _ := f.launches()
	assert.Zero(t, graphs)
	checkEcho(t, b, []uint64{7, 8, 9}, 16, true)
	graphs, _ = f.launches()
	assert.Equal(t, int64(1), graphs)
}

// TestInferenceStreams: with one shared inference stream per device, the
// lanes' engines run one at a time there while their copies go on their
// own streams, and the results are the same.
func TestInferenceStreams(t *testing.T) {
	t.Parallel()
	for _, graphs := range []string{"false", "true"} {
		t.Run("cuda_graphs="+graphs, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 2, 1<<22)
			f.setDelay(int64(2*time.Millisecond), 0)
			b := newBackend(t, f, fakePlan(planSimple, outSimple),
				map[string]string{"streams": "3", "inference_streams": "1", "batch_size": "2", "cuda_graphs": graphs})
			assert.Equal(t, int32(2*(3+1)), f.live().streams, "three lanes and one inference stream per device")
			require.NoError(t, b.LoadSamples(t.Context(), acceltest.Loaded(acceltest.Seq(24), 16)))
			for range 2 {
				checkEcho(t, b, reversed(24), 16, false)
			}
			_, peak := f.Kernels()
			assert.LessOrEqual(t, peak, 2, "one kernel at a time on each device's inference stream")
			require.NoError(t, b.Close())
			assert.Equal(t, liveObjects{}, f.live())
		})
	}
}

func TestSpinWait(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<22)
	f.setDelay(int64(time.Millisecond), 0)
	b := newBackend(t, f, fakePlan(planSimple, outSimple), map[string]string{"spin_wait": "true"})
	checkEcho(t, b, acceltest.Seq(5), 16, true)
	// With a watchdog, a spinning wait still times out.
	f.Gate(true)
	t.Cleanup(func() { f.Gate(false) })
	b2 := newBackend(t, f, fakePlan(planSimple, outSimple),
		map[string]string{"spin_wait": "true", "timeout": "20ms", "streams": "1"})
	rec := acceltest.NewRecorder()
	require.NoError(t, b2.Infer(t.Context(), acceltest.Query(acceltest.Seq(1), 16, true, true), rec))
	_, failed, _ := rec.Results()
	require.ErrorIs(t, failed[acceltest.IDBase], ErrDeviceTimeout)
	f.Gate(false)
}
