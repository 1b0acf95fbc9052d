package aic

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

func TestCStructLayouts(t *testing.T) {
	t.Parallel()
	// Sizes of QBuffer, QAicBufferMappings, QAicIoBufferInfo and QData on
	// 64-bit platforms.
	assert.Equal(t, uintptr(32), unsafe.Sizeof(qBuffer{}))
	assert.Equal(t, uintptr(32), unsafe.Sizeof(bufferMapping{}))
	assert.Equal(t, uintptr(24), unsafe.Offsetof(bufferMapping{}.dataType))
	assert.Equal(t, uintptr(16), unsafe.Sizeof(ioBufferInfo{}))
	assert.Equal(t, uintptr(16), unsafe.Sizeof(ioData{}))
}

func TestInferComputesOutputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		batch   int
		bufs    []string
		ins     []int
		outs    []int
		opts    map[string]string
		load    bool
		samples int
		want    bool
	}{
		{name: "batch 4, data in query", batch: 4, bufs: []string{"input x 16", "output y 16"},
			ins: []int{16}, outs: []int{16}, samples: 11, want: true},
		{name: "loaded samples", batch: 4, bufs: []string{"input x 16", "output y 16"},
			ins: []int{16}, outs: []int{16}, load: true, samples: 9, want: true},
		// Inputs are packed back to back in a sample; outputs concatenated.
		{name: "two inputs two outputs", batch: 2, bufs: []string{"input a 3", "input b 5", "output y 8", "output z 2"},
			ins: []int{3, 5}, outs: []int{8, 2}, load: true, samples: 7, want: true},
		{name: "activations and devices", batch: 1, bufs: []string{"input x 8", "output y 4"},
			ins: []int{8}, outs: []int{4}, samples: 20, want: true,
			opts: map[string]string{"activations": "2", "set_size": "3", "devices": "0-1"}},
		{name: "no output wanted", batch: 4, bufs: []string{"input x 16", "output y 16"},
			ins: []int{16}, outs: []int{16}, samples: 6, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeQAic(t, 2, 16)
			opts := map[string]string{"batch_size": strconv.Itoa(tt.batch)}
			for k, v := range tt.opts {
				opts[k] = v
			}
			b := newLoaded(t, f, qpc(tt.batch, 4, tt.bufs...), opts)
			size := 0
			for _, n := range tt.ins {
				size += n
			}
			if tt.load {
				var ls []sdk.LoadedSample
				for i := range uint64(tt.samples) {
					ls = append(ls, sdk.LoadedSample{Index: i, Data: acceltest.SampleBytes(i, size)})
				}
				require.NoError(t, b.LoadSamples(t.Context(), ls))
			}
			c := acceltest.NewRecorder()
			require.NoError(t, b.Infer(t.Context(), samplesOf(tt.samples, size, !tt.load, tt.want), c))
			out, failed, _ := c.Results()
			assert.Empty(t, failed)
			require.Len(t, out, tt.samples)
			for i := range uint64(tt.samples) {
				if tt.want {
					assert.Equal(t, acceltest.EchoOutput(acceltest.SampleBytes(i, size), tt.ins, tt.outs), out[acceltest.IDBase+i], "sample %d", i)
				} else {
					assert.Empty(t, out[acceltest.IDBase+i])
				}
			}
		})
	}
}

func TestProgramFromFile(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 1, 16)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "programqpc.bin"), qpc(2, 4, "input x 4", "output y 4"), 0o600))
	for _, path := range []string{dir, filepath.Join(dir, "programqpc.bin")} {
		b, err := New(f.config())
		require.NoError(t, err)
		require.NoError(t, b.Load(t.Context(), sdk.Model{Path: path, Options: map[string]string{"batch_size": "2"}}))
		c := acceltest.NewRecorder()
		require.NoError(t, b.Infer(t.Context(), samplesOf(3, 4, true, true), c))
		out, _, _ := c.Results()
		assert.Equal(t, acceltest.SampleBytes(2, 4), out[acceltest.IDBase+2])
		require.NoError(t, b.Close())
	}
	assert.Equal(t, liveObjects{}, f.live())
}

func TestProgramSource(t *testing.T) {
	t.Parallel()
	acceltest.ModelSource{
		Option: "qpc", Model: qpc(1, 4, "input x 4", "output y 4"), SampleSize: 4,
		New: func(t *testing.T) sdk.Backend {
			b, err := New(newFakeQAic(t, 1, 16).config())
			require.NoError(t, err)
			return b
		},
		Nothing: "no program", NotLoaded: ErrNotLoaded,
	}.Test(t)
}

func TestBatchesOfCompiledSize(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 1, 16)
	b := newLoaded(t, f, qpc(4, 4, "input x 4", "output y 4"), map[string]string{"batch_size": "4", "set_size": "1"})
	c := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), samplesOf(10, 4, true, true), c))
	runs := f.runs()
	assert.Equal(t, int64(3), runs, "10 samples in batches of 4, the last padded")
	out, _, _ := c.Results()
	assert.Equal(t, acceltest.SampleBytes(9, 4), out[acceltest.IDBase+9])
}

// TestActivationsRunConcurrently holds every run at the fake's gate: the
// batches of one query reach all 2 devices × 2 activations × 2 exec objects.
func TestActivationsRunConcurrently(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 2, 16)
	b := newLoaded(t, f, qpc(1, 4, "input x 4", "output y 4"), map[string]string{"activations": "2", "set_size": "2"})
	assert.Equal(t, 8, b.Info().MaxInFlight, "after Load, the options' 2 devices × 2 activations × 2 exec objects")
	f.Gate(true)
	t.Cleanup(func() { f.Gate(false) })
	c := acceltest.NewRecorder()
	done := make(chan error, 1)
	go func() { done <- b.Infer(t.Context(), samplesOf(8, 4, true, true), c) }()
	require.Eventually(t, func() bool { n, _ := f.Kernels(); return n == 8 }, 10*time.Second, time.Millisecond)
	f.Gate(false)
	require.NoError(t, <-done)
	out, _, _ := c.Results()
	assert.Len(t, out, 8)
	perDevice := map[int]int{}
	for _, p := range f.programs() {
		if p.runs > 0 {
			perDevice[p.dev]++
		}
	}
	assert.Equal(t, map[int]int{0: 2, 1: 2}, perDevice, "both activations of both devices ran")
}

// TestCompletionsFollowExecution runs the first batch on a slow device and
// the second on a fast one: the second completes first.
func TestCompletionsFollowExecution(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 2, 16)
	f.setDeviceDelay(0, int64(200*time.Millisecond))
	b := newLoaded(t, f, qpc(2, 4, "input x 4", "output y 4"), map[string]string{"batch_size": "2", "set_size": "1"})
	c := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), samplesOf(4, 4, true, true), c))
	_, _, order := c.Results()
	assert.Equal(t, []uint64{1002, 1003, 1000, 1001}, order)
}

func TestEnqueueFailureFailsItsBatch(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 1, 16)
	b := newLoaded(t, f, qpc(2, 4, "input x 4", "output y 4"), map[string]string{"batch_size": "2", "set_size": "1"})
	f.failEnqueue(2)
	c := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), samplesOf(6, 4, true, true), c))
	out, failed, _ := c.Results()
	assert.Len(t, out, 4)
	require.Len(t, failed, 2)
	var se *StatusError
	require.ErrorAs(t, failed[acceltest.IDBase+2], &se)
	assert.Equal(t, StatusGenericError, se.Status)
	assert.Equal(t, "qaicEnqueueExecObj", se.Op)
	assert.Contains(t, failed[acceltest.IDBase+3].Error(), "device 0 activation 0 exec 0")

	c = acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), samplesOf(2, 4, true, true), c))
	out, failed, _ = c.Results()
	assert.Len(t, out, 2)
	assert.Empty(t, failed)
}

func TestFailedDeviceIsDropped(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 2, 16)
	b := newLoaded(t, f, qpc(1, 4, "input x 4", "output y 4"), map[string]string{"set_size": "1"})
	f.failDevice(1)
	c := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), samplesOf(2, 4, true, true), c))
	out, failed, _ := c.Results()
	assert.Len(t, out, 1)
	var de *DeviceError
	require.ErrorAs(t, failed[acceltest.IDBase+1], &de)
	assert.Equal(t, 1, de.Device)
	assert.Equal(t, abi.Unavailable, sdk.CodeOf(failed[acceltest.IDBase+1]))
	var se *StatusError
	require.ErrorAs(t, failed[acceltest.IDBase+1], &se)
	assert.Equal(t, StatusDevError, se.Status)

	c = acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), samplesOf(5, 4, true, true), c))
	out, failed, _ = c.Results()
	assert.Len(t, out, 5)
	assert.Empty(t, failed)

	f.failDevice(0)
	_ = b.Infer(t.Context(), samplesOf(1, 4, true, true), acceltest.NewRecorder())
	c = acceltest.NewRecorder()
	require.ErrorIs(t, b.Infer(t.Context(), samplesOf(3, 4, true, true), c), ErrNoDevice)
	_, failed, _ = c.Results()
	assert.Len(t, failed, 3)
}

func TestWaitTimeoutFailsDevice(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 1, 16)
	b := newLoaded(t, f, qpc(1, 4, "input x 4", "output y 4"), map[string]string{"wait_timeout": "20ms"})
	f.Gate(true)
	t.Cleanup(func() { f.Gate(false) })
	c := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), samplesOf(1, 4, true, true), c))
	_, failed, _ := c.Results()
	var se *StatusError
	require.ErrorAs(t, failed[acceltest.IDBase], &se)
	assert.Equal(t, StatusTimedOut, se.Status)
	var de *DeviceError
	require.ErrorAs(t, failed[acceltest.IDBase], &de)
}

// TestCloseAfterWaitTimeout closes the backend while a batch whose wait
// timed out is still running (held at the fake's gate). Releasing its exec
// object or unmapping its buffers then would pull memory from under the
// device; the fake refuses the release and newFakeQAic's cleanup fails the
// test.
func TestCloseAfterWaitTimeout(t *testing.T) {
	t.Parallel()
	timeOut := func(t *testing.T, f *fakeQAic, b *Backend) {
		f.Gate(true)
		t.Cleanup(func() { f.Gate(false) })
		c := acceltest.NewRecorder()
		require.NoError(t, b.Infer(t.Context(), samplesOf(1, 4, true, true), c))
		_, failed, _ := c.Results()
		var se *StatusError
		require.ErrorAs(t, failed[acceltest.IDBase], &se)
		require.Equal(t, StatusTimedOut, se.Status)
	}
	program := qpc(1, 4, "input x 4", "output y 4")
	opts := map[string]string{"wait_timeout": "20ms", "set_size": "1"}

	t.Run("waits for the submission", func(t *testing.T) {
		t.Parallel()
		f := newFakeQAic(t, 1, 16)
		b := newLoaded(t, f, program, opts)
		timeOut(t, f, b)
		closed := make(chan error, 1)
		go func() { closed <- b.Close() }()
		require.Eventually(t, func() bool { return f.waiting() > 0 }, 10*time.Second, time.Millisecond,
			"Close should wait for the submission held at the gate")
		f.Gate(false)
		require.NoError(t, <-closed)
		assert.Equal(t, liveObjects{}, f.live())
	})

	t.Run("abandons a device that does not finish", func(t *testing.T) {
		t.Parallel()
		f := newFakeQAic(t, 2, 16)
		b := newLoaded(t, f, program, opts)
		timeOut(t, f, b)
		programOf(t, b).settleGrace = 50 * time.Millisecond
		err := b.Close()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "device 0 activation 0 exec 0")
		assert.Contains(t, err.Error(), "QS_TIMEDOUT")
		assert.Contains(t, err.Error(), "programs loaded until the process exits")
		// Device 0's activation stays, with the context and the QPC;
		// device 1's is released.
		assert.Equal(t, liveObjects{contexts: 1, queues: 1, qpcs: 1, programs: 1, execs: 1, nspUsed: 4}, f.live())
		require.NoError(t, b.Close(), "Close is idempotent")
	})
}

func TestInferStopsWaitingOnCancel(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 1, 16)
	b := newLoaded(t, f, qpc(2, 4, "input x 4", "output y 4"), map[string]string{"batch_size": "2", "set_size": "1"})
	f.Gate(true)
	t.Cleanup(func() { f.Gate(false) })
	ctx, cancel := context.WithCancel(t.Context())
	c := acceltest.NewRecorder()
	done := make(chan error, 1)
	go func() { done <- b.Infer(ctx, samplesOf(4, 4, true, true), c) }()
	require.Eventually(t, func() bool { n, _ := f.Kernels(); return n == 1 }, 10*time.Second, time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	_, failed, order := c.Results()
	assert.Len(t, order, 2, "the undispatched batch failed; the running one is abandoned")
	assert.Contains(t, failed, uint64(acceltest.IDBase+2))
	f.Gate(false)
	require.NoError(t, b.Close())
	_, _, after := c.Results()
	assert.Len(t, after, 2, "nothing reaches the completer after Infer returned")
}

func TestLoadFailsCleanly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		program []byte
		opts    map[string]string
		want    string
		// code, when set, is the status code the host must get.
		code abi.Code
	}{
		// Three activations of 8 cores do not fit 16 NSPs.
		{name: "too many activations", program: qpc(1, 8, "input x 4", "output y 4"),
			opts: map[string]string{"activations": "3"}, want: "QS_NOSPC"},
		{name: "not a QPC", program: []byte("garbage"), want: "qaicOpenQpc: QS_INVAL"},
		{name: "batch size mismatch", program: qpc(3, 4, "input x 3", "output y 3"),
			opts: map[string]string{"batch_size": "2"}, want: "not a multiple of batch_size 2"},
		{name: "no output", program: qpc(1, 4, "input x 4"), want: "at least one input and one output"},
		{name: "unknown device", program: qpc(1, 4, "input x 4", "output y 4"),
			opts: map[string]string{"devices": "7"}, want: "device 7"},
		{name: "bad option", program: qpc(1, 4, "input x 4", "output y 4"),
			opts: map[string]string{"activation": "2"}, want: "option activation: unknown", code: abi.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeQAic(t, 1, 16)
			b, err := New(f.config())
			require.NoError(t, err)
			err = b.Load(t.Context(), sdk.Model{Bytes: tt.program, Options: tt.opts})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			if tt.code != abi.OK {
				assert.Equal(t, tt.code, sdk.CodeOf(err))
			}
			assert.Equal(t, liveObjects{}, f.live(), "a failed Load releases programs, NSPs and the context")
			require.NoError(t, b.Close())
		})
	}
}

func TestCloseReleasesEverything(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 2, 16)
	b, err := New(f.config())
	require.NoError(t, err)
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: qpc(1, 4, "input x 4", "output y 4"),
		Options: map[string]string{"activations": "2"}}))
	assert.Equal(t, liveObjects{contexts: 1, queues: 4, qpcs: 1, programs: 4, execs: 8, nspUsed: 16}, f.live())
	require.NoError(t, b.Warmup(t.Context()))
	runs := f.runs()
	assert.Equal(t, int64(8), runs, "warm-up runs every exec object once")
	require.NoError(t, b.Infer(t.Context(), samplesOf(3, 4, true, true), acceltest.NewRecorder()))
	require.ErrorIs(t, b.Load(t.Context(), sdk.Model{Bytes: qpc(1, 4, "input x 4", "output y 4")}), ErrLoaded)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	assert.Equal(t, liveObjects{}, f.live())
	require.ErrorIs(t, b.Infer(t.Context(), samplesOf(1, 4, true, true), acceltest.NewRecorder()), ErrClosed)
}

func TestSampleChecks(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 1, 16)
	b := newLoaded(t, f, qpc(2, 4, "input x 4", "output y 4"), map[string]string{"batch_size": "2"})
	err := b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 1, Data: make([]byte, 3)}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "3 bytes")
	require.NoError(t, b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 0, Data: acceltest.SampleBytes(0, 4)}}))
	q := samplesOf(2, 4, false, true)
	c := acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), q, c))
	out, failed, _ := c.Results()
	assert.Equal(t, acceltest.SampleBytes(0, 4), out[acceltest.IDBase])
	assert.Contains(t, failed[acceltest.IDBase+1].Error(), "no data")
	require.NoError(t, b.UnloadSamples(t.Context(), []uint64{0}))
	c = acceltest.NewRecorder()
	require.NoError(t, b.Infer(t.Context(), samplesOf(1, 4, false, true), c))
	_, failed, _ = c.Results()
	assert.Contains(t, failed, uint64(acceltest.IDBase), "unloaded samples have no data")
	runs := f.runs()
	assert.Equal(t, int64(1), runs, "a batch without a valid sample does not run")
}

func TestInfoProbesDevices(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 3, 16)
	cfg := f.config()
	cfg.Activations, cfg.SetSize = 2, 3
	b, err := New(cfg)
	require.NoError(t, err)
	info := b.Info()
	assert.Equal(t, "qaic", info.Name)
	assert.Equal(t, 18, info.MaxInFlight)
	require.Len(t, info.Devices, 3)
	assert.Equal(t, sdk.Device{ID: 1, Name: "Cloud AI 100 (QID 1)", Kind: "aic", MemoryBytes: 16 << 30,
		Driver: "AIC runtime 1.20.2.0 fake, 16 NSPs (16 free)"}, info.Devices[1])
	cfg.Devices = []int{2}
	b, err = New(cfg)
	require.NoError(t, err)
	assert.Equal(t, 6, b.Info().MaxInFlight)
}

func TestMissingRuntimeNamesLibrary(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.LibraryPaths = []string{"/nonexistent/libQAic.so"}
	b, err := New(cfg)
	require.NoError(t, err)
	assert.Empty(t, b.Info().Devices)
	assert.Contains(t, b.Info().Description, "libQAic.so")
	err = b.Load(t.Context(), sdk.Model{Bytes: qpc(1, 4, "input x 4", "output y 4")})
	require.ErrorIs(t, err, ErrRuntimeMissing)
	assert.Equal(t, abi.FailedPrecondition, sdk.CodeOf(err), "the host gets a status it can explain")
	var le *LibraryError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, []string{"/nonexistent/libQAic.so"}, le.Tried)
	assert.Contains(t, err.Error(), "/opt/qti-aic/dev/lib/x86_64/libQAic.so")
	assert.Contains(t, err.Error(), "library=")
	require.ErrorIs(t, b.Infer(t.Context(), sdk.Query{}, acceltest.NewRecorder()), ErrNotLoaded)
}

// TestConcurrentCallers runs MaxInFlight callers at once under the race
// detector's eye.
func TestConcurrentCallers(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 2, 16)
	b := newLoaded(t, f, qpc(4, 4, "input x 8", "output y 8"), map[string]string{"batch_size": "4", "set_size": "2"})
	var wg sync.WaitGroup
	for g := range b.Info().MaxInFlight {
		wg.Go(func() {
			for range 20 {
				c := acceltest.NewRecorder()
				q := samplesOf(9, 8, true, true)
				for i := range q.Samples {
					q.Samples[i].ID += uint64(g * 1000)
				}
				assert.NoError(t, b.Infer(t.Context(), q, c))
				out, failed, _ := c.Results()
				assert.Len(t, out, 9)
				assert.Empty(t, failed)
			}
		})
	}
	wg.Wait()
}
