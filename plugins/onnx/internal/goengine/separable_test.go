package goengine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
)

// separableOf loads m, plans it for batch 4 and returns each step's op
// type with its separability, or nil when there is no plan for batch 1
// running the same steps.
func separableOf(t *testing.T, m []byte, shape ...int) map[string]bool {
	t.Helper()
	s := load(t, m, engine.Options{Threads: 1, Extra: map[string]string{OptBatchSplit: "off"}}).(*session)
	p, err := s.planFor([][]int{append([]int{4}, shape...)})
	require.NoError(t, err)
	one, n := planOne(s.g, s.env, s.pool, p, s.cfg.maxArena)
	if one == nil {
		return nil
	}
	require.Equal(t, 4, n)
	got := map[string]bool{}
	for i, ok := range separableSteps(p, one, n) {
		got[strings.Trim(p.steps[i].node.name, `"`)] = ok
	}
	return got
}

func TestSampleSeparable(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	x4 := []onnxpb.ValueInfo{floatInfo("x", -1, 2, 3, 3)}
	x2 := []onnxpb.ValueInfo{floatInfo("x", -1, 6)}
	w := onnxpb.FloatTensor("w", []int64{2, 2, 1, 1}, randFloats(r, 4))
	tests := []struct {
		name  string
		nodes []onnxpb.Node
		inits []onnxpb.Tensor
		in    []onnxpb.ValueInfo
		shape []int
		want  map[string]bool // by node name; nil: no plan for batch 1
	}{
		{
			name: "conv, activation, pooling, flatten",
			nodes: []onnxpb.Node{
				nd("Conv", []string{"x", "w"}, []string{"c"}),
				nd("Relu", []string{"c"}, []string{"r"}), // fused into the Conv
				nd("MaxPool", []string{"r"}, []string{"m"}, onnxpb.IntsAttr("kernel_shape", 2, 2)),
				nd("GlobalAveragePool", []string{"m"}, []string{"g"}),
				nd("Flatten", []string{"g"}, []string{"y"}),
			},
			inits: []onnxpb.Tensor{w}, in: x4, shape: []int{2, 3, 3},
			want: map[string]bool{"Conv_c": true, "MaxPool_m": true, "GlobalAveragePool_g": true, "Flatten_y": true},
		},
		{
			name:  "add a constant broadcast along the batch",
			nodes: []onnxpb.Node{nd("Add", []string{"x", "b"}, []string{"y"})},
			inits: []onnxpb.Tensor{onnxpb.FloatTensor("b", []int64{1, 6}, randFloats(r, 6))}, in: x2, shape: []int{6},
			want: map[string]bool{"Add_y": true},
		},
		{
			name:  "add a constant that varies along the batch",
			nodes: []onnxpb.Node{nd("Add", []string{"x", "b"}, []string{"y"})},
			inits: []onnxpb.Tensor{onnxpb.FloatTensor("b", []int64{4, 6}, randFloats(r, 24))}, in: x2, shape: []int{6},
			want: map[string]bool{"Add_y": false}, // at batch 1 the output has 4 rows
		},
		{
			name:  "reshape keeping the batch",
			nodes: []onnxpb.Node{nd("Reshape", []string{"x", "s"}, []string{"y"})},
			inits: []onnxpb.Tensor{onnxpb.Int64Tensor("s", []int64{3}, []int64{-1, 2, 3})}, in: x2, shape: []int{6},
			want: map[string]bool{"Reshape_y": true},
		},
		{
			name:  "reshape that folds the batch",
			nodes: []onnxpb.Node{nd("Reshape", []string{"x", "s"}, []string{"r"}), nd("Relu", []string{"r"}, []string{"y"})},
			inits: []onnxpb.Tensor{onnxpb.Int64Tensor("s", []int64{2}, []int64{1, -1})}, in: x2, shape: []int{6},
			want: map[string]bool{"Reshape_r": false, "Relu_y": false},
		},
		{
			name:  "softmax over the batch",
			nodes: []onnxpb.Node{nd("Softmax", []string{"x"}, []string{"y"}, onnxpb.IntAttr("axis", 0))},
			in:    x2, shape: []int{6},
			want: map[string]bool{"Softmax_y": false},
		},
		{
			name:  "softmax per sample",
			nodes: []onnxpb.Node{nd("Softmax", []string{"x"}, []string{"y"}, onnxpb.IntAttr("axis", -1))},
			in:    x2, shape: []int{6},
			want: map[string]bool{"Softmax_y": true},
		},
		{
			name:  "argmax over the batch",
			nodes: []onnxpb.Node{nd("ArgMax", []string{"x"}, []string{"y"}, onnxpb.IntAttr("axis", 0), onnxpb.IntAttr("keepdims", 0))},
			in:    x2, shape: []int{6},
			want: map[string]bool{"ArgMax_y": false},
		},
		{
			name:  "concat along the batch",
			nodes: []onnxpb.Node{nd("Concat", []string{"x", "x"}, []string{"y"}, onnxpb.IntAttr("axis", 0))},
			in:    x2, shape: []int{6},
			want: map[string]bool{"Concat_y": false},
		},
		{
			name:  "concat per sample",
			nodes: []onnxpb.Node{nd("Concat", []string{"x", "x"}, []string{"y"}, onnxpb.IntAttr("axis", 1))},
			in:    x2, shape: []int{6},
			want: map[string]bool{"Concat_y": true},
		},
		{
			name: "matmul with the batch as the column operand",
			nodes: []onnxpb.Node{
				nd("Transpose", []string{"x"}, []string{"t"}, onnxpb.IntsAttr("perm", 1, 0)),
				nd("MatMul", []string{"t", "x"}, []string{"y"}),
			},
			in: x2, shape: []int{6},
			want: map[string]bool{"Transpose_t": false, "MatMul_y": false},
		},
		{
			name:  "matmul with the batch as the row operand: not split",
			nodes: []onnxpb.Node{nd("MatMul", []string{"x", "m"}, []string{"y"})},
			inits: []onnxpb.Tensor{onnxpb.FloatTensor("m", []int64{6, 2}, randFloats(r, 12))}, in: x2, shape: []int{6},
			want: map[string]bool{"MatMul_y": false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var y []onnxpb.ValueInfo
			y = append(y, onnxpb.ValueInfo{Name: "y"})
			m := model(tt.nodes, tt.inits, tt.in, y)
			assert.Equal(t, tt.want, separableOf(t, m, tt.shape...))
		})
	}
}

func TestChooseSegments(t *testing.T) {
	t.Parallel()
	seg := func(lo, hi int, split bool) segment { return segment{lo: lo, hi: hi, split: split} }
	tests := []struct {
		name            string
		gains, weighted []bool
		want            []segment
	}{
		{"all gain", []bool{true, true, true}, []bool{true, false, true}, []segment{seg(0, 3, true)}},
		{"none gains", []bool{false, false}, []bool{true, true}, []segment{seg(0, 2, false)}},
		{"one step alone is not split", []bool{false, true, false}, []bool{true, true, true}, []segment{seg(0, 3, false)}},
		{"weightless steps are not split", []bool{true, true}, []bool{false, false}, []segment{seg(0, 2, false)}},
		{
			"runs that gain, between steps that do not", []bool{true, true, false, false, true, true, true},
			[]bool{true, true, true, true, false, true, false},
			[]segment{seg(0, 2, true), seg(2, 4, false), seg(4, 7, true)},
		},
		{
			"a weightless run after a split one runs whole", []bool{true, true, false, true, true},
			[]bool{true, true, true, false, false}, []segment{seg(0, 2, true), seg(2, 5, false)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, chooseSegments(tt.gains, tt.weighted))
		})
	}
}

// requireSplitMatchesWhole runs m at batch on a session that splits the
// batch and on one that does not, and requires the same bits.
func requireSplitMatchesWhole(t *testing.T, m []byte, threads, batch int, sample []int64, r *rand.Rand) *plan {
	t.Helper()
	opts := func(split string) engine.Options {
		return engine.Options{Threads: threads, MaxBatch: batch, Extra: map[string]string{OptBatchSplit: split}}
	}
	whole, split := load(t, m, opts("off")), load(t, m, opts("on"))
	shape := append([]int64{int64(batch)}, sample...)
	in := []engine.Tensor{{Name: whole.Inputs()[0].Name, DType: engine.Float32, Shape: shape,
		Data: floatBytes(randFloats(r, int(engine.Elements(shape))))}}
	want, got := make([]engine.Tensor, len(whole.Outputs())), make([]engine.Tensor, len(whole.Outputs()))
	ctx := context.Background()
	require.NoError(t, whole.Run(ctx, in, want))
	for range 2 { // the second run on the plan's reused buffers
		require.NoError(t, split.Run(ctx, in, got))
		for i := range want {
			assert.Equal(t, want[i].Shape, got[i].Shape)
			assert.Equal(t, want[i].Data, got[i].Data, "output %s differs from the whole batch's", want[i].Name)
		}
	}
	s := split.(*session)
	for _, p := range s.plans {
		if p.key[0] == batch {
			return p
		}
	}
	t.Fatalf("no plan for batch %d", batch)
	return nil
}

func TestBatchSplitMatchesWholeBatch(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 14))
	m := cnn(r)
	for _, threads := range []int{1, 2} {
		p := requireSplitMatchesWhole(t, m, threads, 3, []int64{3, 8, 8}, r)
		require.NotNil(t, p.split)
		// The convolutions and pooling run sample by sample; the Gemm (its
		// weights outweigh a sample's activations) and the Softmax after
		// it run on the whole batch.
		var split []string
		for _, sg := range p.split.segs {
			if sg.split {
				for _, st := range p.steps[sg.lo:sg.hi] {
					split = append(split, st.node.opType)
				}
			}
		}
		assert.Equal(t, []string{"Conv", "Conv", "MaxPool", "GlobalAveragePool", "Flatten"}, split)
	}
}

func TestBatchSplitMobileNetV2(t *testing.T) {
	if testing.Short() {
		t.Skip("builds MobileNetV2 and runs it at batch 2 twice; TestBatchSplitMatchesWholeBatch covers the same code")
	}
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 16))
	p := requireSplitMatchesWhole(t, zoo.MobileNetV2(1), 1, 2, []int64{3, 224, 224}, r)
	require.NotNil(t, p.split)
}

func TestBatchSplitOption(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		threads int
		value   string
		want    bool
	}{
		{"auto with one thread", 1, "", true},
		{"auto with two threads", 2, "auto", false},
		{"on", 2, "on", true},
		{"off", 1, "off", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := parseOptions(engine.Options{Threads: tt.threads, Extra: map[string]string{OptBatchSplit: tt.value}})
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.split)
		})
	}
	_, err := parseOptions(engine.Options{Extra: map[string]string{OptBatchSplit: "yes"}})
	require.ErrorContains(t, err, "batch_split")
}

// TestBatchSplitFixtures runs every operator and model fixture with and
// without the split, fused and not, and requires the same bits: the
// unfused residual blocks put a split stretch's inputs and outputs where
// a placement that ignored the split would let them share memory.
func TestBatchSplitFixtures(t *testing.T) {
	t.Parallel()
	fixtures := readFixtures(t)
	var split []string
	for _, f := range fixtures {
		for _, fuse := range []string{"true", "false"} {
			dir := filepath.Join(fixtureDir, f.Name)
			m, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
			require.NoError(t, err)
			ins := make([]engine.Tensor, f.Inputs)
			for i := range ins {
				ins[i] = readTensor(t, filepath.Join(dir, fmt.Sprintf("input_%d.pb", i)))
			}
			outs := map[string][]engine.Tensor{}
			for _, mode := range []string{"off", "on"} {
				s := load(t, m, engine.Options{Threads: 1, Extra: map[string]string{OptFuse: fuse, OptBatchSplit: mode}})
				outs[mode] = make([]engine.Tensor, f.Outputs)
				require.NoError(t, s.Run(context.Background(), ins, outs[mode]), "%s fuse=%s split=%s", f.Name, fuse, mode)
				for _, p := range s.(*session).plans {
					if p.split != nil && fuse == "false" {
						split = append(split, f.Name)
					}
				}
			}
			for i := range outs["off"] {
				assert.Equal(t, outs["off"][i].Data, outs["on"][i].Data, "%s fuse=%s output %d", f.Name, fuse, i)
			}
		}
	}
	assert.Contains(t, split, "model_mini_resnet_bn", "the fixture that shares memory across a split must split")
}

func TestBatchSplitAllocsNothing(t *testing.T) {
	// Not parallel: AllocsPerRun refuses parallel tests.
	r := rand.New(rand.NewPCG(17, 18))
	s := load(t, cnn(r), engine.Options{Threads: 1, MaxBatch: 2, Extra: map[string]string{OptBatchSplit: "on"}})
	in := []engine.Tensor{{DType: engine.Float32, Shape: []int64{2, 3, 8, 8}, Data: floatBytes(randFloats(r, 2*192))}}
	outs := make([]engine.Tensor, 1)
	ctx := context.Background()
	require.NoError(t, s.Run(ctx, in, outs))
	require.NotNil(t, s.(*session).plans[len(s.(*session).plans)-1].split)
	allocs := testing.AllocsPerRun(10, func() { _ = s.Run(ctx, in, outs) })
	assert.Zero(t, allocs)
}
