package backend

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// argMaxFirstModel is the demo model shaped as MLPerf's resnet50_v1.onnx:
// two outputs, "ArgMax:0" int64 [N] first, then the scores.
func argMaxFirstModel(t *testing.T) []byte {
	t.Helper()
	m, err := onnxpb.Decode(fashionmnist.Model())
	require.NoError(t, err)
	g := &m.Graph
	g.Nodes = append(g.Nodes, onnxpb.Node{Name: "argmax", OpType: "ArgMax", Inputs: []string{"logits"}, Outputs: []string{"ArgMax:0"},
		Attrs: []onnxpb.Attr{onnxpb.IntAttr("axis", 1), onnxpb.IntAttr("keepdims", 0)}})
	g.Outputs = append([]onnxpb.ValueInfo{onnxpb.TensorInfo("ArgMax:0", onnxpb.Int64, -1)}, g.Outputs...)
	return onnxpb.Encode(m)
}

// TestResponseClass answers the first 40 images with their class as a
// float32, from each form a model may give it in, and checks it against
// PyTorch's prediction.
func TestResponseClass(t *testing.T) {
	t.Parallel()
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	ref, err := fashionmnist.LoadReference()
	require.NoError(t, err)
	classModel, err := fashionmnist.ClassModel()
	require.NoError(t, err)
	tests := []struct {
		name   string
		model  []byte
		opts   map[string]string
		offset int
	}{
		{name: "argmax of logits", model: fashionmnist.Model(), opts: map[string]string{OptResponse: ResponseClass}},
		{name: "class output in the graph", model: classModel, opts: map[string]string{OptResponse: ResponseClass}},
		// The served demo model answers its class with the default response.
		{name: "class model raw", model: classModel},
		// MLPerf's ResNet-50 graphs count "background" as class 0.
		{name: "int64 ArgMax output with offset", model: argMaxFirstModel(t),
			opts: map[string]string{OptResponse: ResponseClass, OptClassOutput: "ArgMax:0", OptClassOffset: "-1"}, offset: -1},
		{name: "named scores output", model: argMaxFirstModel(t),
			opts: map[string]string{OptResponse: ResponseClass, OptClassOutput: "logits"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := New(goengine.New())
			require.NoError(t, b.Load(context.Background(), sdk.Model{Bytes: tt.model, Options: tt.opts}))
			t.Cleanup(func() { _ = b.Close() })
			c := newCompleter()
			var q sdk.Query
			for i := range 40 {
				q.Samples = append(q.Samples, sdk.Sample{ID: uint64(i), Index: uint64(i), Data: set.Images[i], WantOutput: true})
			}
			require.NoError(t, b.Infer(context.Background(), q, c))
			require.Empty(t, c.failed)
			for i := range 40 {
				resp := c.done[uint64(i)]
				require.Len(t, resp, 4, "image %d", i)
				got := math.Float32frombits(binary.LittleEndian.Uint32(resp))
				assert.Equal(t, math.Float32bits(float32(ref.Predictions[i]+tt.offset)), math.Float32bits(got), "image %d: bit for bit", i)
			}
		})
	}
}

func TestResponseOptionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		model    []byte
		opts     map[string]string
		mentions string
	}{
		{name: "unknown response", opts: map[string]string{OptResponse: "argmax"}, mentions: `response="argmax": want one of outputs, class, squad`},
		{name: "unknown output", opts: map[string]string{OptResponse: ResponseClass, OptClassOutput: "probs"}, mentions: "outputs are logits"},
		{name: "offset without class", opts: map[string]string{OptClassOffset: "-1"}, mentions: "need response=class"},
		{name: "bad offset", opts: map[string]string{OptResponse: ResponseClass, OptClassOffset: "one"}, mentions: "class_offset"},
		// ArgMax:0, the first output, is one int64 per sample: a class, accepted.
		{name: "int64 class output accepted", model: argMaxFirstModel(t), opts: map[string]string{OptResponse: ResponseClass}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := tt.model
			if model == nil {
				model = fashionmnist.Model()
			}
			b := New(goengine.New())
			err := b.Load(context.Background(), sdk.Model{Bytes: model, Options: tt.opts})
			t.Cleanup(func() { _ = b.Close() })
			if tt.mentions == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.mentions)
		})
	}
}

func TestArgmaxFloat32(t *testing.T) {
	t.Parallel()
	f := func(vs ...float32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return b
	}
	nan := float32(math.NaN())
	tests := []struct {
		name string
		in   []byte
		want int64
	}{
		{name: "first highest", in: f(1, 3, 3, 2), want: 1},
		{name: "one", in: f(-5), want: 0},
		// numpy's argmax: the first NaN wins.
		{name: "nan", in: f(1, nan, 9), want: 1},
		{name: "nan first", in: f(nan, 9), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, argmaxFloat32(tt.in))
		})
	}
}
