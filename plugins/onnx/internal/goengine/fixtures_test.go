package goengine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// fixtureDir holds the PyTorch reference fixtures written by
// tools/onnxgen/fixtures.py (make onnx-fixtures).
const fixtureDir = "../../testdata/ops"

type fixture struct {
	Name    string  `json:"name"`
	Inputs  int     `json:"inputs"`
	Outputs int     `json:"outputs"`
	ATol    float64 `json:"atol"`
	RTol    float64 `json:"rtol"`
	Note    string  `json:"note"`
}

func readFixtures(t *testing.T) []fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, "manifest.json"))
	require.NoError(t, err)
	var fs []fixture
	require.NoError(t, json.Unmarshal(b, &fs))
	require.NotEmpty(t, fs)
	return fs
}

// readTensor reads one input_N.pb/output_N.pb file as an engine tensor.
func readTensor(t *testing.T, path string) engine.Tensor {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	p, err := onnxpb.DecodeTensor(b)
	require.NoError(t, err)
	out := engine.Tensor{Name: p.Name, DType: engine.DType(p.DataType), Shape: p.Dims}
	switch p.DataType {
	case onnxpb.Float:
		f, err := p.Float32s()
		require.NoError(t, err)
		out.Data = floatBytes(f)
	case onnxpb.Int64:
		v, err := p.Int64s()
		require.NoError(t, err)
		out.Data = make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(out.Data[8*i:], uint64(x))
		}
	default:
		out.Data, err = p.Bytes()
		require.NoError(t, err)
	}
	return out
}

// compareTensor checks got against want within atol + rtol·|want|.
func compareTensor(t *testing.T, want, got engine.Tensor, atol, rtol float64) {
	t.Helper()
	require.Equal(t, want.DType, got.DType)
	require.Equal(t, want.Shape, got.Shape)
	if want.DType != engine.Float32 {
		require.Equal(t, want.Data, got.Data)
		return
	}
	w, g := bytesFloats(want.Data), bytesFloats(got.Data)
	worst := 0.0
	for i := range w {
		d := math.Abs(float64(w[i] - g[i]))
		lim := atol + rtol*math.Abs(float64(w[i]))
		if d > lim || math.IsNaN(float64(g[i])) {
			require.Failf(t, "mismatch", "element %d: want %g, got %g (|d|=%g > %g)", i, w[i], g[i], d, lim)
		}
		worst = max(worst, d)
	}
}

// TestFixtures runs every reference fixture with the portable and the
// best micro-kernel, on one and on three threads, fused and unfused.
func TestFixtures(t *testing.T) {
	t.Parallel()
	configs := []struct {
		name string
		opts engine.Options
	}{
		{name: "go-1thread", opts: engine.Options{Threads: 1, Extra: map[string]string{OptKernel: "go"}}},
		{name: "auto-3threads", opts: engine.Options{Threads: 3}},
		{name: "unfused", opts: engine.Options{Threads: 1, Extra: map[string]string{OptFuse: "false"}}},
		// F(2×2, 3×3) where auto takes F(4×4) (Winograd runs in WASM only).
		{name: "winograd-f2", opts: engine.Options{Threads: 1, Extra: map[string]string{OptWinograd: "f2"}}},
	}
	for _, f := range readFixtures(t) {
		for _, cfg := range configs {
			t.Run(f.Name+"/"+cfg.name, func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(fixtureDir, f.Name)
				m, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
				require.NoError(t, err)
				s := load(t, m, cfg.opts)
				ins := make([]engine.Tensor, f.Inputs)
				for i := range ins {
					ins[i] = readTensor(t, filepath.Join(dir, fmt.Sprintf("input_%d.pb", i)))
				}
				outs := make([]engine.Tensor, f.Outputs)
				require.Len(t, s.Outputs(), f.Outputs)
				for run := range 2 { // the second run reuses every buffer
					require.NoError(t, s.Run(context.Background(), ins, outs), "run %d", run)
					for i := range outs {
						want := readTensor(t, filepath.Join(dir, fmt.Sprintf("output_%d.pb", i)))
						compareTensor(t, want, outs[i], f.ATol, f.RTol)
					}
				}
			})
		}
	}
}

func TestFixtureManifestCoversOperators(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, f := range readFixtures(t) {
		b, err := os.ReadFile(filepath.Join(fixtureDir, f.Name, "model.onnx"))
		require.NoError(t, err)
		m, err := onnxpb.Decode(b)
		require.NoError(t, err)
		for _, n := range m.Graph.Nodes {
			seen[n.OpType] = true
		}
	}
	for op := range registry() {
		assert.True(t, seen[op], "no fixture uses %s", op)
	}
}
