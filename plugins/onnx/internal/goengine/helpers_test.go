package goengine

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// model builds an ONNX model at opset 13 from nodes, initializers and
// value infos.
func model(nodes []onnxpb.Node, inits []onnxpb.Tensor, inputs, outputs []onnxpb.ValueInfo) []byte {
	return modelAt(13, nodes, inits, inputs, outputs)
}

func modelAt(opset int64, nodes []onnxpb.Node, inits []onnxpb.Tensor, inputs, outputs []onnxpb.ValueInfo) []byte {
	return onnxpb.Encode(&onnxpb.Model{
		IRVersion: 8, Opsets: []onnxpb.Opset{{Version: opset}}, HasGraph: true,
		Graph: onnxpb.Graph{Name: "t", Nodes: nodes, Initializers: inits, Inputs: inputs, Outputs: outputs},
	})
}

func nd(op string, in, out []string, attrs ...onnxpb.Attr) onnxpb.Node {
	return onnxpb.Node{Name: op + "_" + out[0], OpType: op, Inputs: in, Outputs: out, Attrs: attrs}
}

func floatInfo(name string, dims ...int64) onnxpb.ValueInfo {
	return onnxpb.TensorInfo(name, onnxpb.Float, dims...)
}

func randFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

func floatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesFloats(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// load loads a model with the given Extra options and closes it with
// the test.
func load(t testing.TB, m []byte, opts engine.Options) engine.Session {
	t.Helper()
	s, err := New().Load(context.Background(), m, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// runFloat runs a single-input, single-output float model.
func runFloat(t testing.TB, s engine.Session, shape []int64, x []float32) ([]int64, []float32) {
	t.Helper()
	outs := make([]engine.Tensor, len(s.Outputs()))
	err := s.Run(context.Background(), []engine.Tensor{{Name: s.Inputs()[0].Name, DType: engine.Float32, Shape: shape, Data: floatBytes(x)}}, outs)
	require.NoError(t, err)
	return outs[0].Shape, bytesFloats(outs[0].Data)
}

func requireClose(t testing.TB, want, got []float32, tol float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		d := math.Abs(float64(want[i] - got[i]))
		if d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(got[i])) != math.IsNaN(float64(want[i])) {
			require.InDeltaf(t, want[i], got[i], tol, "element %d", i)
		}
	}
}
