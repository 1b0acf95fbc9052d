//go:build linux || darwin

package ort

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// slowModel chains n MatMuls of a [64,512] activation with one [512,512]
// weight: long enough (hundreds of ms or more) that a terminate request
// always lands while it runs, in nodes short enough that ONNX Runtime
// sees the request soon (it checks the flag between nodes).
func slowModel(n int) []byte {
	w := make([]float32, 512*512)
	for i := range w {
		w[i] = float32(i%7) / 2048
	}
	var nodes []onnxpb.Node
	prev := "x"
	for i := range n {
		out := "y"
		if i < n-1 {
			out = "h" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		}
		nodes = append(nodes, node("MatMul", []string{prev, "w"}, []string{out}))
		prev = out
	}
	return graphModel(13, nodes, []onnxpb.Tensor{onnxpb.FloatTensor("w", []int64{512, 512}, w)},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("x", onnxpb.Float, 64, 512)},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.Float, 64, 512)})
}

// onRun is a context that calls hook the first time Run asks for its Done
// channel, which the session does after its argument checks, right
// before handing the inputs to ONNX Runtime.
type onRun struct {
	context.Context
	once sync.Once
	hook func()
}

func (c *onRun) Done() <-chan struct{} {
	c.once.Do(c.hook)
	return c.Context.Done()
}

// TestInterruptRun checks that cancelling the context, or closing the
// session, stops a Run in flight through the terminate flag, and that the
// session runs normally after a cancelled Run.
func TestInterruptRun(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	m := slowModel(300)
	opts := engine.Options{Threads: 1, Extra: map[string]string{OptOptimization: "disable"}}
	in := []engine.Tensor{{Name: "x", DType: engine.Float32, Shape: []int64{64, 512}, Data: make([]byte, 64*512*4)}}
	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		s := load(t, e, m, opts)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		err := s.Run(&onRun{Context: ctx, hook: cancel}, in, make([]engine.Tensor, 1))
		require.ErrorIs(t, err, context.Canceled)
		// The flag was cleared: the next Run starts normally. Cut it
		// short the same way so the test stays fast.
		ctx2, cancel2 := context.WithCancel(context.Background())
		defer cancel2()
		require.ErrorIs(t, s.Run(&onRun{Context: ctx2, hook: cancel2}, in, make([]engine.Tensor, 1)), context.Canceled)
	})
	t.Run("close", func(t *testing.T) {
		t.Parallel()
		s := load(t, e, m, opts)
		closed := make(chan error, 1)
		ctx := &onRun{Context: context.Background(), hook: func() { go func() { closed <- s.Close() }() }}
		// Background's Done is nil, so wrap it in a cancellable context
		// for the session to watch.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		err := s.Run(cctx, in, make([]engine.Tensor, 1))
		require.ErrorIs(t, err, engine.ErrClosed)
		require.NoError(t, <-closed)
	})
}

// TestTerminateFlag checks RunOptionsSetTerminate (46) and
// RunOptionsUnsetTerminate (47) directly.
func TestTerminateFlag(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s := load(t, e, linearModel(), engine.Options{Threads: 1}).(*Session)
	in := []engine.Tensor{{Name: "x", DType: engine.Float32, Shape: []int64{1, 3}, Data: make([]byte, 12)}}
	outs := make([]engine.Tensor, 2)
	require.NoError(t, s.api.status(apiRunOptionsSetTerminate, s.runOpts))
	err := s.Run(context.Background(), in, outs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "terminate")
	require.NoError(t, s.api.status(apiRunOptionsUnsetTerminate, s.runOpts))
	require.NoError(t, s.Run(context.Background(), in, outs))
}

// TestRuntimeError checks that an error ONNX Runtime raises while running
// (here a Reshape to an impossible shape) comes back with its message and
// leaves the session usable.
func TestRuntimeError(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	m := graphModel(13, []onnxpb.Node{node("Reshape", []string{"x", "shape"}, []string{"y"})}, nil,
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("x", onnxpb.Float, 6), onnxpb.TensorInfo("shape", onnxpb.Int64, 2)},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.Float, -1, -1)})
	s := load(t, e, m, engine.Options{Threads: 1})
	x := engine.Tensor{Name: "x", DType: engine.Float32, Shape: []int64{6}, Data: f32Bytes([]float32{1, 2, 3, 4, 5, 6})}
	shape := func(a, b int64) engine.Tensor {
		return engine.Tensor{Name: "shape", DType: engine.Int64, Shape: []int64{2}, Data: i64Bytes([]int64{a, b})}
	}
	outs := make([]engine.Tensor, 1)
	err := s.Run(context.Background(), []engine.Tensor{x, shape(5, 5)}, outs)
	var st *StatusError
	require.ErrorAs(t, err, &st)
	assert.Contains(t, err.Error(), "ort: run")
	assert.Contains(t, st.Message, "Reshape")
	require.NoError(t, s.Run(context.Background(), []engine.Tensor{x, shape(3, 2)}, outs))
	assert.Equal(t, []int64{3, 2}, outs[0].Shape)
	assert.Equal(t, x.Data, outs[0].Data)
}

// TestConcurrentSessions loads and runs sessions from several goroutines
// at once (one engine), and shares one session between two goroutines
// (Run serializes them). Meant for -race.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	m := fashionmnist.Model()
	shared := load(t, e, m, engine.Options{Threads: 1})
	in := []engine.Tensor{{Name: shared.Inputs()[0].Name, DType: engine.Uint8, Shape: []int64{2, 1, 28, 28}, Data: make([]byte, 2*784)}}
	for i := range in[0].Data {
		in[0].Data[i] = byte(i * 7)
	}
	want := make([]engine.Tensor, 1)
	require.NoError(t, shared.Run(context.Background(), in, want))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Go(func() {
			s := shared
			if g >= 2 {
				own, err := e.Load(context.Background(), m, engine.Options{Threads: 1})
				if err != nil {
					errs <- err
					return
				}
				defer own.Close()
				s = own
			}
			outs := make([]engine.Tensor, 1)
			for range 20 {
				if err := s.Run(context.Background(), in, outs); err != nil {
					errs <- err
					return
				}
				if string(outs[0].Data) != string(want[0].Data) {
					errs <- assert.AnError
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestRunAllocs bounds the Go allocations of one Run in steady state:
// purego allocates the argument block of each C call (its variadic
// slice must be heap allocated to keep the pointers in it alive), and
// nothing else allocates. One Run makes two calls per input (create and
// release its OrtValue), one Run call and six per output (shape, data,
// releases).
func TestRunAllocs(t *testing.T) {
	// Not parallel: testing.AllocsPerRun refuses parallel tests.
	if raceEnabled {
		t.Skip("-race instruments allocations")
	}
	e := newEngine(t)
	s := load(t, e, linearModel(), engine.Options{Threads: 1})
	in := []engine.Tensor{{Name: "x", DType: engine.Float32, Shape: []int64{1, 3}, Data: make([]byte, 12)}}
	outs := make([]engine.Tensor, 2)
	ctx := context.Background()
	require.NoError(t, s.Run(ctx, in, outs))
	allocs := testing.AllocsPerRun(20, func() {
		if err := s.Run(ctx, in, outs); err != nil {
			t.Error(err)
		}
	})
	assert.LessOrEqual(t, allocs, float64(2*len(in)+1+6*len(outs)))
}
