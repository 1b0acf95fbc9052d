package goengine

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// cnn is Conv→BN→Relu→Conv(+residual)→Relu→MaxPool→GAP→Flatten→Gemm→Softmax.
func cnn(r *rand.Rand) []byte {
	const c, m = 3, 4
	return model(
		[]onnxpb.Node{
			nd("Conv", []string{"x", "w1", "b1"}, []string{"c1"}, onnxpb.IntsAttr("pads", 1, 1, 1, 1), onnxpb.IntsAttr("kernel_shape", 3, 3)),
			nd("BatchNormalization", []string{"c1", "g", "beta", "mean", "var"}, []string{"bn"}, onnxpb.FloatAttr("epsilon", 1e-3)),
			nd("Relu", []string{"bn"}, []string{"r1"}),
			nd("Conv", []string{"r1", "w2"}, []string{"c2"}, onnxpb.StringAttr("auto_pad", "SAME_UPPER")),
			nd("Add", []string{"c2", "r1"}, []string{"sum"}),
			nd("Relu", []string{"sum"}, []string{"r2"}),
			nd("MaxPool", []string{"r2"}, []string{"mp"}, onnxpb.IntsAttr("kernel_shape", 2, 2), onnxpb.IntsAttr("strides", 2, 2)),
			nd("GlobalAveragePool", []string{"mp"}, []string{"gap"}),
			nd("Flatten", []string{"gap"}, []string{"flat"}),
			nd("Gemm", []string{"flat", "fw", "fb"}, []string{"logits"}, onnxpb.IntAttr("transB", 1)),
			nd("Softmax", []string{"logits"}, []string{"y"}, onnxpb.IntAttr("axis", 1)),
		},
		[]onnxpb.Tensor{
			onnxpb.FloatTensor("w1", []int64{m, c, 3, 3}, randFloats(r, m*c*9)),
			onnxpb.FloatTensor("b1", []int64{m}, randFloats(r, m)),
			onnxpb.FloatTensor("g", []int64{m}, randFloats(r, m)),
			onnxpb.FloatTensor("beta", []int64{m}, randFloats(r, m)),
			onnxpb.FloatTensor("mean", []int64{m}, randFloats(r, m)),
			onnxpb.FloatTensor("var", []int64{m}, []float32{0.5, 1, 1.5, 2}),
			onnxpb.FloatTensor("w2", []int64{m, m, 3, 3}, randFloats(r, m*m*9)),
			onnxpb.FloatTensor("fw", []int64{5, m}, randFloats(r, 5*m)),
			onnxpb.FloatTensor("fb", []int64{5}, randFloats(r, 5)),
		},
		[]onnxpb.ValueInfo{floatInfo("x", -1, c, 8, 8)},
		[]onnxpb.ValueInfo{floatInfo("y", -1, 5)},
	)
}

func TestFusedMatchesUnfused(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	m := cnn(r)
	x := randFloats(r, 3*3*8*8)
	plain := load(t, m, engine.Options{Extra: map[string]string{OptFuse: "false", OptKernel: "go"}})
	fused := load(t, m, engine.Options{Threads: 2})
	for _, batch := range []int64{1, 3, 2} {
		shape := []int64{batch, 3, 8, 8}
		in := x[:batch*3*64]
		s1, want := runFloat(t, plain, shape, in)
		s2, got := runFloat(t, fused, shape, in)
		assert.Equal(t, []int64{batch, 5}, s1)
		assert.Equal(t, s1, s2)
		requireClose(t, want, got, 1e-5)
	}
	assert.Equal(t, []engine.TensorDesc{{Name: "y", DType: engine.Float32, Shape: []int64{-1, 5}}}, fused.Outputs())
	gs := fused.(*session)
	ops := map[string]int{}
	for _, n := range gs.g.nodes {
		if !n.dead {
			ops[n.opType]++
		}
	}
	assert.Equal(t, map[string]int{"Conv": 2, "MaxPool": 1, "GlobalAveragePool": 1, "Flatten": 1, "Gemm": 1, "Softmax": 1}, ops)
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	s := load(t, cnn(r), engine.Options{MaxBatch: 4})
	ctx := context.Background()
	outs := make([]engine.Tensor, 1)
	tests := []struct {
		name string
		in   []engine.Tensor
		want error
	}{
		{name: "no inputs", in: nil, want: engine.ErrInput},
		{name: "wrong dims", in: []engine.Tensor{{DType: engine.Float32, Shape: []int64{1, 3, 8, 9}, Data: make([]byte, 4*3*72)}}, want: engine.ErrInput},
		{name: "batch over max", in: []engine.Tensor{{DType: engine.Float32, Shape: []int64{5, 3, 8, 8}, Data: make([]byte, 4*5*192)}}, want: engine.ErrInput},
		{name: "dtype", in: []engine.Tensor{{DType: engine.Uint8, Shape: []int64{1, 3, 8, 8}, Data: make([]byte, 192)}}, want: engine.ErrInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorIs(t, s.Run(ctx, tt.in, outs), tt.want)
		})
	}
}

func TestRunCanceledAndClosed(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	s, err := New().Load(context.Background(), cnn(r), engine.Options{})
	require.NoError(t, err)
	in := []engine.Tensor{{DType: engine.Float32, Shape: []int64{1, 3, 8, 8}, Data: make([]byte, 4*192)}}
	outs := make([]engine.Tensor, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.Run(ctx, in, outs), context.Canceled)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Run(context.Background(), in, outs), engine.ErrClosed)
}

func TestRunAllocsNothing(t *testing.T) {
	// Not parallel: AllocsPerRun refuses parallel tests.
	r := rand.New(rand.NewPCG(7, 8))
	s := load(t, cnn(r), engine.Options{Threads: 2})
	in := []engine.Tensor{{DType: engine.Float32, Shape: []int64{2, 3, 8, 8}, Data: floatBytes(randFloats(r, 2*192))}}
	outs := make([]engine.Tensor, 1)
	ctx := context.Background()
	require.NoError(t, s.Run(ctx, in, outs))
	allocs := testing.AllocsPerRun(10, func() { _ = s.Run(ctx, in, outs) })
	assert.Zero(t, allocs)
}
