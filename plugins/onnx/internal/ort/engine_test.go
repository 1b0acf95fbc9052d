//go:build linux || darwin

package ort

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// linearModel is y = relu(x·Wᵀ + b) for x [N,3], W [2,3], plus the
// argmax of y over axis 1 as a second output (int64 [N]).
func linearModel() []byte {
	return graphModel(13,
		[]onnxpb.Node{
			node("Gemm", []string{"x", "w", "b"}, []string{"g"}, onnxpb.IntAttr("transB", 1)),
			node("Relu", []string{"g"}, []string{"y"}),
			node("ArgMax", []string{"y"}, []string{"class"}, onnxpb.IntAttr("axis", 1), onnxpb.IntAttr("keepdims", 0)),
		},
		[]onnxpb.Tensor{
			onnxpb.FloatTensor("w", []int64{2, 3}, []float32{1, 2, 3, -1, -2, -3}),
			onnxpb.FloatTensor("b", []int64{2}, []float32{0.5, 10}),
		},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("x", onnxpb.Float, -1, 3)},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.Float, -1, 2), onnxpb.TensorInfo("class", onnxpb.Int64, -1)})
}

// mixedModel takes a uint8 image and an int64 offset: y = float(img)·0.5
// and z = offset + 7, checking the integer element types both ways.
func mixedModel() []byte {
	return graphModel(13,
		[]onnxpb.Node{
			node("Cast", []string{"img"}, []string{"f"}, onnxpb.IntAttr("to", int64(onnxpb.Float))),
			node("Mul", []string{"f", "half"}, []string{"y"}),
			node("Add", []string{"offset", "seven"}, []string{"z"}),
		},
		[]onnxpb.Tensor{
			onnxpb.FloatTensor("half", nil, []float32{0.5}),
			onnxpb.Int64Tensor("seven", nil, []int64{7}),
		},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("img", onnxpb.Uint8, -1, 4), onnxpb.TensorInfo("offset", onnxpb.Int64, 2)},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.Float, -1, 4), onnxpb.TensorInfo("z", onnxpb.Int64, 2)})
}

// TestSignature checks the input and output entries (counts, names,
// type infos) on models whose inputs and outputs differ in number, type
// and shape.
func TestSignature(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	tests := []struct {
		name          string
		model         []byte
		inputs, outpt []string
	}{
		{name: "one input two outputs", model: linearModel(), inputs: []string{"x:float[?,3]"}, outpt: []string{"y:float[?,2]", "class:int64[?]"}},
		{name: "two inputs mixed types", model: mixedModel(), inputs: []string{"img:uint8[?,4]", "offset:int64[2]"}, outpt: []string{"y:float[?,4]", "z:int64[2]"}},
	}
	str := func(ds []engine.TensorDesc) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.String())
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := load(t, e, tt.model, engine.Options{Threads: 1})
			assert.Equal(t, tt.inputs, str(s.Inputs()))
			assert.Equal(t, tt.outpt, str(s.Outputs()))
		})
	}
}

// TestRun runs the hand-built models on several batch sizes, twice each
// with the same output tensors (the second run reuses their buffers).
func TestRun(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	t.Run("linear", func(t *testing.T) {
		t.Parallel()
		s := load(t, e, linearModel(), engine.Options{Threads: 2, MaxBatch: 4})
		outs := make([]engine.Tensor, 2)
		for _, batch := range []int{1, 3, 4, 2} {
			x := make([]float32, 3*batch)
			for i := range x {
				x[i] = float32(i%5) - 1.5
			}
			wantY := make([]float32, 2*batch)
			wantC := make([]int64, batch)
			for n := range batch {
				r := x[3*n : 3*n+3]
				y0 := max(0, r[0]+2*r[1]+3*r[2]+0.5)
				y1 := max(0, -r[0]-2*r[1]-3*r[2]+10)
				wantY[2*n], wantY[2*n+1] = y0, y1
				if y1 > y0 {
					wantC[n] = 1
				}
			}
			in := []engine.Tensor{{Name: "x", DType: engine.Float32, Shape: []int64{int64(batch), 3}, Data: f32Bytes(x)}}
			for range 2 {
				require.NoError(t, s.Run(context.Background(), in, outs))
				assert.Equal(t, engine.Tensor{Name: "y", DType: engine.Float32, Shape: []int64{int64(batch), 2}, Data: f32Bytes(wantY)}, outs[0])
				assert.Equal(t, engine.Tensor{Name: "class", DType: engine.Int64, Shape: []int64{int64(batch)}, Data: i64Bytes(wantC)}, outs[1])
			}
		}
	})
	t.Run("mixed types", func(t *testing.T) {
		t.Parallel()
		s := load(t, e, mixedModel(), engine.Options{Threads: 1})
		in := []engine.Tensor{
			{Name: "img", DType: engine.Uint8, Shape: []int64{2, 4}, Data: []byte{0, 1, 2, 255, 10, 20, 30, 40}},
			{Name: "offset", DType: engine.Int64, Shape: []int64{2}, Data: i64Bytes([]int64{-7, 1 << 40})},
		}
		outs := make([]engine.Tensor, 2)
		require.NoError(t, s.Run(context.Background(), in, outs))
		assert.Equal(t, f32Bytes([]float32{0, 0.5, 1, 127.5, 5, 10, 15, 20}), outs[0].Data)
		assert.Equal(t, i64Bytes([]int64{0, 1<<40 + 7}), outs[1].Data)
	})
}

// TestRunErrors checks that bad Run arguments fail with clear errors
// before reaching ONNX Runtime, and that the session still works after.
func TestRunErrors(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s := load(t, e, linearModel(), engine.Options{Threads: 1, MaxBatch: 4})
	good := engine.Tensor{Name: "x", DType: engine.Float32, Shape: []int64{2, 3}, Data: make([]byte, 24)}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		inputs   []engine.Tensor
		outputs  int
		target   error
		mentions string
	}{
		{name: "no inputs", inputs: nil, outputs: 2, target: engine.ErrInput, mentions: "0 inputs"},
		{name: "one output slot", inputs: []engine.Tensor{good}, outputs: 1, target: engine.ErrInput, mentions: "1 outputs"},
		{name: "dtype", inputs: []engine.Tensor{{DType: engine.Int64, Shape: []int64{2, 3}, Data: make([]byte, 48)}}, outputs: 2, target: engine.ErrInput, mentions: "dtype int64"},
		{name: "fixed dim", inputs: []engine.Tensor{{DType: engine.Float32, Shape: []int64{2, 4}, Data: make([]byte, 32)}}, outputs: 2, target: engine.ErrInput, mentions: "dim 1 is 4"},
		{name: "rank", inputs: []engine.Tensor{{DType: engine.Float32, Shape: []int64{6}, Data: make([]byte, 24)}}, outputs: 2, target: engine.ErrInput, mentions: "rank 1"},
		{name: "batch over max", inputs: []engine.Tensor{{DType: engine.Float32, Shape: []int64{5, 3}, Data: make([]byte, 60)}}, outputs: 2, target: engine.ErrInput, mentions: "free dim 0 is 5"},
		{name: "short data", inputs: []engine.Tensor{{DType: engine.Float32, Shape: []int64{2, 3}, Data: make([]byte, 20)}}, outputs: 2, target: engine.ErrInput, mentions: "20 data bytes"},
		{name: "canceled", ctx: canceled, inputs: []engine.Tensor{good}, outputs: 2, target: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: the cases share one session, whose Run is
			// serialized anyway.
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			err := s.Run(ctx, tt.inputs, make([]engine.Tensor, tt.outputs))
			require.ErrorIs(t, err, tt.target)
			assert.Contains(t, err.Error(), tt.mentions)
		})
	}
	require.NoError(t, s.Run(context.Background(), []engine.Tensor{good}, make([]engine.Tensor, 2)))
}

// TestClose checks that Close is idempotent and that Run after Close
// fails with ErrClosed.
func TestClose(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	s, err := e.Load(context.Background(), linearModel(), engine.Options{Threads: 1})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	in := []engine.Tensor{{Name: "x", DType: engine.Float32, Shape: []int64{1, 3}, Data: make([]byte, 12)}}
	require.ErrorIs(t, s.Run(context.Background(), in, make([]engine.Tensor, 2)), engine.ErrClosed)
	assert.Len(t, s.Inputs(), 1, "descriptors outlive Close")
}

// TestRunOutputShapeFromData: NonZero's output size depends on the data,
// not on the input's shape. A Run that hands ONNX Runtime the output
// shape learned from the last one fails with the new data; the session
// must notice, run again reading the output, and stop guessing.
func TestRunOutputShapeFromData(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	model := graphModel(13, []onnxpb.Node{node("NonZero", []string{"x"}, []string{"y"})}, nil,
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("x", onnxpb.Float, 4)},
		[]onnxpb.ValueInfo{onnxpb.TensorInfo("y", onnxpb.Int64, 1, -1)})
	s := load(t, e, model, engine.Options{Threads: 1})
	outs := make([]engine.Tensor, 1)
	for _, tc := range []struct {
		x    []float32
		want []int64
	}{
		{[]float32{1, 0, 2, 0}, []int64{0, 2}},
		{[]float32{1, 0, 2, 0}, []int64{0, 2}}, // the same shape again: written in place
		{[]float32{1, 1, 1, 0}, []int64{0, 1, 2}},
		{[]float32{0, 0, 0, 5}, []int64{3}},
	} {
		in := []engine.Tensor{{Name: "x", DType: engine.Float32, Shape: []int64{4}, Data: f32Bytes(tc.x)}}
		require.NoError(t, s.Run(context.Background(), in, outs), "x=%v", tc.x)
		assert.Equal(t, engine.Tensor{Name: "y", DType: engine.Int64, Shape: []int64{1, int64(len(tc.want))}, Data: i64Bytes(tc.want)}, outs[0])
	}
	assert.True(t, s.(*Session).plan.off, "the session stopped guessing output shapes")
}
