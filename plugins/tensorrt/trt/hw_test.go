package trt

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// hardwareShim returns a fake shim that resolves its CUDA calls to the real
// libcudart at cudart: prebuilt (MLPERF_HOST_FAKE_SHIM, linked against the
// soname libcudart.so.N) or linked here with gcc.
func hardwareShim(t *testing.T, cudart string) string {
	if p := os.Getenv("MLPERF_HOST_FAKE_SHIM"); p != "" {
		return p
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skipf("gcc is needed to link the fake shim against %s (or set MLPERF_HOST_FAKE_SHIM): %v", cudart, err)
	}
	fakeObjects.Dir(t)
	shimLib := filepath.Join(t.TempDir(), "libfaketrt.so")
	acceltest.Link(t, shimLib, fakeObjects.Object("faketrt.c"), cudart, "-Xlinker", "-rpath", "-Xlinker", filepath.Dir(cudart))
	return shimLib
}

// TestHardwareCUDA runs the CUDA-runtime half of the plugin on a real GPU:
// discovery, device and pinned allocations, asynchronous copies, streams,
// events and sample residency, with the fake TensorRT shim, whose "kernel"
// is device-to-device copies on the lane's stream. It logs latency and
// throughput figures.
//
// It runs only with MLPERF_HOST_DEVICE=1 and MLPERF_HOST_CUDART set to the
// libcudart to test, e.g. PyTorch's nvidia/cuda_runtime/lib/libcudart.so.12.
func TestHardwareCUDA(t *testing.T) {
	// Not parallel: it measures timings on the GPU.
	if os.Getenv("MLPERF_HOST_DEVICE") != "1" {
		t.Skip("needs a CUDA GPU: set MLPERF_HOST_DEVICE=1 and MLPERF_HOST_CUDART=/path/to/libcudart.so.N")
	}
	cudart := os.Getenv("MLPERF_HOST_CUDART")
	require.NotEmpty(t, cudart, "set MLPERF_HOST_CUDART to the libcudart to test")
	cfg := DefaultConfig()
	cfg.CudartPaths = []string{cudart}
	cfg.ShimPaths = []string{hardwareShim(t, cudart)}

	b, err := New(cfg)
	require.NoError(t, err)
	info := b.Info()
	require.NotEmpty(t, info.Devices, "no device found: %s", info.Description)
	for _, d := range info.Devices {
		t.Logf("device %d: %s, %d MiB, %s", d.ID, d.Name, d.MemoryBytes>>20, d.Driver)
	}
	// The total from cudaDeviceProp (read at a fixed offset, without a
	// context) must match cudaMemGetInfo's.
	var total uint64
	func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		require.NoError(t, b.cuda.SetDevice(0))
		_, total, err = b.cuda.MemInfo()
		require.NoError(t, err)
	}()
	assert.Equal(t, total, info.Devices[0].MemoryBytes, "cudaDeviceProp.totalGlobalMem vs cudaMemGetInfo")
	require.NoError(t, b.Close())

	for _, batched := range []bool{true, false} {
		t.Run(fmt.Sprintf("batch_copies=%v", batched), func(t *testing.T) {
			hardwareRun(t, cfg, batched)
		})
	}
}

// hardwareRun loads the identity engine, checks outputs and logs timings.
func hardwareRun(t *testing.T, cfg Config, batched bool) {
	b, err := New(cfg)
	require.NoError(t, err)
	const size = 3 * 224 * 224
	plan := fakePlan("input x uint8 -1x3x224x224 max=64", "output y uint8 -1x3x224x224")
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: plan, Options: map[string]string{
		"streams": "2", "batch_copies": strconv.FormatBool(batched), "start_from_device": "true"}}))
	t.Logf("cudaMemcpyBatchAsync available: %v, used: %v", b.cuda.BatchCopies(), batched && b.cuda.BatchCopies())
	defer func() { require.NoError(t, b.Close()) }()
	require.NoError(t, b.Warmup(t.Context()))

	const n = 256
	var ls []sdk.LoadedSample
	for i := range uint64(n) {
		ls = append(ls, sdk.LoadedSample{Index: i, Data: acceltest.SampleBytes(i, size)})
	}
	require.NoError(t, b.LoadSamples(t.Context(), ls))
	loaded, ok := modelOf(t, b).samples.place(0)
	require.True(t, ok)
	require.True(t, loaded.a.onDevice(), "256 ResNet-sized samples fit on the device")

	// Device-resident samples and samples sent with the query.
	for _, withData := range []bool{false, true} {
		rec := acceltest.NewRecorder()
		idx := acceltest.Seq(n)
		if withData {
			for i := range idx {
				idx[i] += n // not loaded: staged from the query's data
			}
		}
		require.NoError(t, b.Infer(t.Context(), acceltest.Query(idx, size, withData, true), rec))
		out, failed, _ := rec.Results()
		require.Empty(t, failed)
		require.Len(t, out, n)
		for _, i := range idx {
			require.Equal(t, acceltest.SampleBytes(i, size), out[1000+i], "sample %d (data in query: %v)", i, withData)
		}
	}

	// Latency of one query, sequentially.
	for _, batch := range []int{1, 8, 64} {
		q := acceltest.Query(acceltest.Seq(batch), size, false, false)
		const iters = 300
		start := time.Now()
		for range iters {
			require.NoError(t, b.Infer(t.Context(), q, acceltest.Discard{}))
		}
		t.Logf("device-resident batch %2d: %8.1f µs per query, sequential", batch,
			float64(time.Since(start).Microseconds())/iters)
	}
	// Throughput with MaxInFlight callers.
	for _, batch := range []int{8, 64} {
		workers := b.Info().MaxInFlight
		q := acceltest.Query(acceltest.Seq(batch), size, false, false)
		deadline := time.Now().Add(time.Second)
		var mu sync.Mutex
		count := 0
		var wg sync.WaitGroup
		start := time.Now()
		for range workers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					if err := b.Infer(t.Context(), q, acceltest.Discard{}); err != nil {
						panic(err)
					}
					mu.Lock()
					count += batch
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		el := time.Since(start)
		t.Logf("device-resident batch %2d, %d callers: %.0f samples/s, %.0f ns per sample (gather copies included)",
			batch, workers, float64(count)/el.Seconds(), float64(el.Nanoseconds())/float64(count))
	}
	// CPU cost of one asynchronous device-to-device copy, the per-sample
	// gather of start-from-device.
	func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		l := modelOf(t, b).lanes[0]
		require.NoError(t, modelOf(t, b).cuda.SetDevice(l.dev.ordinal))
		p, _ := modelOf(t, b).samples.place(0)
		src := p.a.input(l.dev.slot, l.in[0].t, p.pos)
		const copies = 10000
		start := time.Now()
		for range copies {
			require.NoError(t, modelOf(t, b).cuda.CopyAsync(l.in[0].dev, src, size, deviceToDevice, l.st))
		}
		issued := time.Since(start)
		require.NoError(t, l.drain())
		t.Logf("cudaMemcpyAsync device-to-device of %d bytes: %.0f ns per call to issue", size,
			float64(issued.Nanoseconds())/copies)
	}()
}

// TestHardwareH2D measures pinned host-to-device bandwidth on device 0:
// the bound of an Offline run whose samples come from host memory, one
// sample per DMA or one per batch. make accel-gpu-check reads its
// h2d_bytes_per_s line. It runs with MLPERF_HOST_DEVICE=1 and
// MLPERF_HOST_CUDART, as TestHardwareCUDA.
func TestHardwareH2D(t *testing.T) {
	// Not parallel: it measures the GPU.
	if os.Getenv("MLPERF_HOST_DEVICE") != "1" {
		t.Skip("needs a CUDA GPU: set MLPERF_HOST_DEVICE=1 and MLPERF_HOST_CUDART=/path/to/libcudart.so.N")
	}
	cudart := os.Getenv("MLPERF_HOST_CUDART")
	require.NotEmpty(t, cudart, "set MLPERF_HOST_CUDART to the libcudart to test")
	cuda, err := loadCudart([]string{cudart})
	require.NoError(t, err)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, cuda.SetDevice(0))
	const size, copies = 64 << 20, 32
	host, err := cuda.MallocHost(size)
	require.NoError(t, err)
	defer func() { assert.NoError(t, cuda.FreeHost(host)) }()
	dev, err := cuda.Malloc(size)
	require.NoError(t, err)
	defer func() { assert.NoError(t, cuda.Free(dev)) }()
	st, err := cuda.StreamCreate()
	require.NoError(t, err)
	defer func() { assert.NoError(t, cuda.StreamDestroy(st)) }()
	ev, err := cuda.EventCreate(true)
	require.NoError(t, err)
	defer func() { assert.NoError(t, cuda.EventDestroy(ev)) }()
	run := func(n int) time.Duration {
		start := time.Now()
		for range n {
			require.NoError(t, cuda.CopyAsync(dev, uintptr(host), size, hostToDevice, st))
		}
		require.NoError(t, cuda.EventRecord(ev, st))
		require.NoError(t, cuda.EventSynchronize(ev))
		return time.Since(start)
	}
	run(2) // warm up
	el := run(copies)
	t.Logf("h2d_bytes_per_s=%.0f (%d pinned copies of %d MiB in %v)", float64(size*copies)/el.Seconds(), copies,
		size>>20, el)
}
