//go:build linux || darwin

package ort

import (
	"context"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// libraryFlag is where the tests look for ONNX Runtime: by default where
// `make ort` puts it.
var libraryFlag = flag.String("ort.library", filepath.Join("..", "..", "..", "..", "third_party", "ort", DefaultLibrary),
	"path of libonnxruntime for the ONNX Runtime engine tests")

// needLibrary returns the path of the ONNX Runtime library, skipping the
// test when it is absent.
func needLibrary(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(*libraryFlag); err != nil {
		t.Skipf("ONNX Runtime library not found at %s (%v): run `make ort`, or pass -ort.library=PATH", *libraryFlag, err)
	}
	return *libraryFlag
}

// newEngine returns an engine over the test library (or skips).
func newEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := NewWithConfig(Config{Library: needLibrary(t)})
	require.NoError(t, err)
	return e
}

// needAPI returns the loaded OrtApi table of the test library (or skips).
func needAPI(t testing.TB) *library {
	t.Helper()
	l, err := newEngine(t).library(*libraryFlag)
	require.NoError(t, err)
	return l
}

// load loads m with opts, closing the session when the test ends.
func load(t testing.TB, e *Engine, m []byte, opts engine.Options) engine.Session {
	t.Helper()
	s, err := e.Load(context.Background(), m, opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// graphModel encodes a one-graph model in the default domain.
func graphModel(opset int64, nodes []onnxpb.Node, inits []onnxpb.Tensor, inputs, outputs []onnxpb.ValueInfo) []byte {
	return onnxpb.Encode(&onnxpb.Model{
		IRVersion: 8, Opsets: []onnxpb.Opset{{Version: opset}}, HasGraph: true,
		Graph: onnxpb.Graph{Name: "test", Nodes: nodes, Initializers: inits, Inputs: inputs, Outputs: outputs},
	})
}

// node returns a NodeProto named after its first output.
func node(op string, in, out []string, attrs ...onnxpb.Attr) onnxpb.Node {
	return onnxpb.Node{Name: op + "_" + out[0], OpType: op, Inputs: in, Outputs: out, Attrs: attrs}
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func i64Bytes(v []int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

// zeroInputs returns zero-filled inputs for s with free dimensions set to
// 1, or false when one would hold more than maxElems elements.
func zeroInputs(s engine.Session, maxElems int) ([]engine.Tensor, bool) {
	var ins []engine.Tensor
	for _, d := range s.Inputs() {
		shape := make([]int64, len(d.Shape))
		for i, n := range d.Shape {
			shape[i] = n
			if n < 0 {
				shape[i] = 1
			}
		}
		n := engine.Elements(shape)
		if n < 0 || n > maxElems {
			return nil, false
		}
		ins = append(ins, engine.Tensor{Name: d.Name, DType: d.DType, Shape: shape, Data: make([]byte, n*d.DType.Size())})
	}
	return ins, true
}
