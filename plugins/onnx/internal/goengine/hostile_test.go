package goengine

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

func reluModel() ([]onnxpb.Node, []onnxpb.ValueInfo, []onnxpb.ValueInfo) {
	return []onnxpb.Node{nd("Relu", []string{"x"}, []string{"y"})},
		[]onnxpb.ValueInfo{floatInfo("x", -1, 4)}, []onnxpb.ValueInfo{floatInfo("y", -1, 4)}
}

// TestLoadRejects checks that models which are malformed, hostile or use
// something unsupported fail Load with the right sentinel, naming the
// node where there is one.
func TestLoadRejects(t *testing.T) {
	t.Parallel()
	relu, in, out := reluModel()
	w := onnxpb.FloatTensor("w", []int64{2, 4}, make([]float32, 8))
	tests := []struct {
		name     string
		model    []byte
		want     error
		mentions string
	}{
		{name: "garbage", model: []byte("not a model"), want: engine.ErrInvalidModel},
		{name: "empty", model: nil, want: engine.ErrUnsupported, mentions: "IR version 0"},
		{name: "IR too new", model: onnxpb.Encode(&onnxpb.Model{IRVersion: 99, HasGraph: true}), want: engine.ErrUnsupported, mentions: "IR version 99"},
		{name: "opset too old", model: modelAt(5, relu, nil, in, out), want: engine.ErrUnsupported, mentions: "opset 5"},
		{name: "opset too new", model: modelAt(99, relu, nil, in, out), want: engine.ErrUnsupported, mentions: "opset 99"},
		{name: "unknown operator", model: model([]onnxpb.Node{nd("LSTM", []string{"x"}, []string{"y"})}, nil, in, out),
			want: engine.ErrUnsupported, mentions: `node "LSTM_y" (LSTM)`},
		{name: "custom domain", model: model([]onnxpb.Node{{Name: "n", OpType: "Relu", Domain: "com.example", Inputs: []string{"x"}, Outputs: []string{"y"}}}, nil, in, out),
			want: engine.ErrUnsupported, mentions: "com.example"},
		{name: "unknown attribute", model: model([]onnxpb.Node{nd("Relu", []string{"x"}, []string{"y"}, onnxpb.IntAttr("alpha", 1))}, nil, in, out),
			want: engine.ErrUnsupported, mentions: `attribute "alpha"`},
		{name: "attribute of wrong type", model: model([]onnxpb.Node{nd("Flatten", []string{"x"}, []string{"y"}, onnxpb.FloatAttr("axis", 1))}, nil, in, out),
			want: engine.ErrInvalidModel, mentions: "Flatten"},
		{name: "missing initializer", model: model([]onnxpb.Node{nd("Add", []string{"x", "nope"}, []string{"y"})}, nil, in, out),
			want: engine.ErrInvalidModel, mentions: `"nope"`},
		{name: "cycle", model: model([]onnxpb.Node{nd("Relu", []string{"b"}, []string{"a"}), nd("Relu", []string{"a"}, []string{"b"}), nd("Relu", []string{"x"}, []string{"y"})}, nil, in, out),
			want: engine.ErrInvalidModel, mentions: "cycle"},
		{name: "self loop", model: model([]onnxpb.Node{nd("Add", []string{"x", "y"}, []string{"y"})}, nil, in, out),
			want: engine.ErrInvalidModel, mentions: "cycle"},
		{name: "value defined twice", model: model([]onnxpb.Node{nd("Relu", []string{"x"}, []string{"y"}), nd("Relu", []string{"x"}, []string{"y"})}, nil, in, out),
			want: engine.ErrInvalidModel},
		{name: "output never produced", model: model(relu, nil, in, []onnxpb.ValueInfo{floatInfo("z", 4)}), want: engine.ErrInvalidModel, mentions: `"z"`},
		{name: "negative input dim", model: model(relu, nil, []onnxpb.ValueInfo{{Name: "x", ElemType: 1, HasShape: true, Shape: []onnxpb.Dim{{Value: -3, HasValue: true}}}}, out),
			want: engine.ErrInvalidModel},
		{name: "huge input dims", model: model(relu, nil, []onnxpb.ValueInfo{floatInfo("x", 1<<40, 1<<40)}, out), want: engine.ErrInvalidModel},
		{name: "input over memory budget", model: model(relu, nil, []onnxpb.ValueInfo{floatInfo("x", 1<<28, 4)}, out), want: engine.ErrUnsupported, mentions: "budget"},
		{name: "initializer data short", model: model(relu, []onnxpb.Tensor{{Name: "w", DataType: onnxpb.Float, Dims: []int64{1 << 20}, Raw: []byte{1}, HasRaw: true}}, in, out),
			want: engine.ErrInvalidModel, mentions: `"w"`},
		{name: "initializer dims overflow", model: model(relu, []onnxpb.Tensor{{Name: "w", DataType: onnxpb.Float, Dims: []int64{1 << 62, 1 << 62}}}, in, out),
			want: engine.ErrInvalidModel},
		{name: "external initializer", model: model(relu, []onnxpb.Tensor{{Name: "w", DataType: onnxpb.Float, Dims: []int64{1}, External: true}}, in, out),
			want: engine.ErrInvalidModel, mentions: "external"},
		{name: "gemm inner dims differ", model: model([]onnxpb.Node{nd("Gemm", []string{"x", "w"}, []string{"y"})}, []onnxpb.Tensor{w}, in, out),
			want: engine.ErrInvalidModel, mentions: "Gemm"},
		{name: "conv on 2-D input", model: model([]onnxpb.Node{nd("Conv", []string{"x", "w"}, []string{"y"})}, []onnxpb.Tensor{w}, in, out),
			want: engine.ErrUnsupported, mentions: "Conv"},
		{name: "reshape to wrong size", model: model([]onnxpb.Node{nd("Reshape", []string{"x", "s"}, []string{"y"})},
			[]onnxpb.Tensor{onnxpb.Int64Tensor("s", []int64{2}, []int64{3, 3})}, in, out), want: engine.ErrInvalidModel, mentions: "reshape"},
		{name: "reshape with runtime shape", model: model([]onnxpb.Node{nd("Reshape", []string{"x", "x"}, []string{"y"})}, nil, in, out),
			want: engine.ErrUnsupported, mentions: "run time"},
		{name: "maxpool indices output", model: model([]onnxpb.Node{nd("MaxPool", []string{"x"}, []string{"y", "idx"}, onnxpb.IntsAttr("kernel_shape", 2, 2))}, nil, in, out),
			want: engine.ErrUnsupported, mentions: "optional output"},
		{name: "conv huge kernel", model: model([]onnxpb.Node{nd("Conv", []string{"x", "w"}, []string{"y"})},
			[]onnxpb.Tensor{onnxpb.FloatTensor("w", []int64{1, 1, 9, 9}, make([]float32, 81))},
			[]onnxpb.ValueInfo{floatInfo("x", 1, 1, 4, 4)}, out), want: engine.ErrInvalidModel, mentions: "larger"},
		{name: "gather index out of range", model: model([]onnxpb.Node{nd("Gather", []string{"x", "i"}, []string{"y"}, onnxpb.IntAttr("axis", 1))},
			[]onnxpb.Tensor{onnxpb.Int64Tensor("i", []int64{1}, []int64{7})}, in, out), want: engine.ErrInvalidModel, mentions: "index 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := New().Load(context.Background(), tt.model, engine.Options{Extra: map[string]string{OptMaxArenaMB: "64"}})
			if s != nil {
				_ = s.Close()
			}
			require.ErrorIs(t, err, tt.want)
			if tt.mentions != "" {
				assert.Contains(t, err.Error(), tt.mentions)
			}
		})
	}
}

func TestNodeErrorNamesNode(t *testing.T) {
	t.Parallel()
	_, in, out := reluModel()
	m := model([]onnxpb.Node{{Name: "my_rnn", OpType: "GRU", Inputs: []string{"x"}, Outputs: []string{"y"}}}, nil, in, out)
	_, err := New().Load(context.Background(), m, engine.Options{})
	var ne *NodeError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, `"my_rnn"`, ne.Node)
	assert.Equal(t, "GRU", ne.Op)
	assert.ErrorIs(t, err, engine.ErrUnsupported)
}

func TestOptionsErrors(t *testing.T) {
	t.Parallel()
	relu, in, out := reluModel()
	m := model(relu, nil, in, out)
	for _, extra := range []map[string]string{{OptKernel: "avx9000"}, {OptFuse: "maybe"}, {OptMaxArenaMB: "-1"}, {OptWinograd: "f3"}} {
		_, err := New().Load(context.Background(), m, engine.Options{Extra: extra})
		require.Error(t, err, "%v", extra)
	}
	_, err := New().Load(context.Background(), m, engine.Options{MaxBatch: -1})
	require.Error(t, err)
}

// FuzzLoad feeds mutated models to Load, and runs whatever loads once on
// zero inputs: neither may panic, hang or allocate without bound.
func FuzzLoad(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 9))
	f.Add(cnn(r))
	relu, in, out := reluModel()
	f.Add(model(relu, nil, in, out))
	if entries, err := os.ReadDir(fixtureDir); err == nil {
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(fixtureDir, e.Name(), "model.onnx")); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	opts := engine.Options{Threads: 1, MaxBatch: 2, Extra: map[string]string{OptMaxArenaMB: "16"}}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := New().Load(context.Background(), b, opts)
		if err != nil {
			if !errors.Is(err, engine.ErrInvalidModel) && !errors.Is(err, engine.ErrUnsupported) && !errors.Is(err, engine.ErrInput) {
				t.Fatalf("Load error without a sentinel: %v", err)
			}
			return
		}
		defer s.Close()
		ins := make([]engine.Tensor, len(s.Inputs()))
		for i, d := range s.Inputs() {
			ins[i] = engine.Tensor{Name: d.Name, DType: d.DType}
			for _, v := range d.Shape {
				ins[i].Shape = append(ins[i].Shape, max(v, 1))
			}
			ins[i].Data = make([]byte, engine.Elements(ins[i].Shape)*d.DType.Size())
		}
		_ = s.Run(context.Background(), ins, make([]engine.Tensor, len(s.Outputs())))
	})
}
