//go:build linux || darwin

package ort

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// opsDir holds the plugin's PyTorch reference fixtures (make onnx-fixtures):
// per case a model.onnx, input_N.pb and output_N.pb (TensorProto), and
// the tolerances in manifest.json.
const opsDir = "../../testdata/ops"

type opsCase struct {
	Name    string  `json:"name"`
	Inputs  int     `json:"inputs"`
	Outputs int     `json:"outputs"`
	ATol    float64 `json:"atol"`
	RTol    float64 `json:"rtol"`
}

// tensorFile reads a TensorProto file as an engine tensor.
func tensorFile(t *testing.T, path string) engine.Tensor {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	p, err := onnxpb.DecodeTensor(b)
	require.NoError(t, err)
	out := engine.Tensor{Name: p.Name, DType: engine.DType(p.DataType), Shape: p.Dims}
	switch p.DataType {
	case onnxpb.Float:
		v, err := p.Float32s()
		require.NoError(t, err)
		out.Data = f32Bytes(v)
	case onnxpb.Int64:
		v, err := p.Int64s()
		require.NoError(t, err)
		out.Data = i64Bytes(v)
	default:
		out.Data, err = p.Bytes()
		require.NoError(t, err)
	}
	return out
}

// requireNear checks got against want: same type and shape, float
// elements within atol + rtol·|want|, other types exactly equal.
func requireNear(t *testing.T, want, got engine.Tensor, atol, rtol float64) {
	t.Helper()
	require.Equal(t, want.DType, got.DType, "dtype")
	require.Equal(t, want.Shape, got.Shape, "shape")
	if want.DType != engine.Float32 {
		require.Equal(t, want.Data, got.Data)
		return
	}
	w, g := bytesF32(want.Data), bytesF32(got.Data)
	require.Len(t, g, len(w))
	for i := range w {
		diff := math.Abs(float64(g[i]) - float64(w[i]))
		if !(diff <= atol+rtol*math.Abs(float64(w[i]))) { // also catches NaN
			require.Failf(t, "element differs", "element %d: got %g, want %g", i, g[i], w[i])
		}
	}
}

// TestFixtures runs every PyTorch reference fixture of the plugin (each
// operator, the mini ResNet and MobileNetV2) at two optimization levels
// (the models also with two inter-op threads, nodes run in parallel),
// twice per session (the second run reuses the output buffers).
func TestFixtures(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	b, err := os.ReadFile(filepath.Join(opsDir, "manifest.json"))
	require.NoError(t, err)
	var cases []opsCase
	require.NoError(t, json.Unmarshal(b, &cases))
	require.NotEmpty(t, cases)
	for _, c := range cases {
		variants := map[string]map[string]string{"all": {OptOptimization: "all"}, "disable": {OptOptimization: "disable"}}
		if strings.HasPrefix(c.Name, "model_") {
			// The models' residual and branch nodes may run at once.
			variants["parallel"] = map[string]string{OptInterOpThreads: "2"}
		}
		for name, extra := range variants {
			t.Run(c.Name+"/"+name, func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(opsDir, c.Name)
				m, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
				require.NoError(t, err)
				s := load(t, e, m, engine.Options{Threads: 1, Extra: extra})
				ins := make([]engine.Tensor, c.Inputs)
				for i := range ins {
					ins[i] = tensorFile(t, filepath.Join(dir, fmt.Sprintf("input_%d.pb", i)))
				}
				outs := make([]engine.Tensor, c.Outputs)
				for range 2 {
					require.NoError(t, s.Run(context.Background(), ins, outs))
					for i := range outs {
						want := tensorFile(t, filepath.Join(dir, fmt.Sprintf("output_%d.pb", i)))
						requireNear(t, want, outs[i], c.ATol, c.RTol)
					}
				}
			})
		}
	}
}

// TestFashionMNIST classifies the demo's 1000 labeled images in batches
// of 100 and compares with PyTorch's predictions and accuracy.
func TestFashionMNIST(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	ref, err := fashionmnist.LoadReference()
	require.NoError(t, err)
	s := load(t, e, fashionmnist.Model(), engine.Options{Threads: 2, MaxBatch: 100})
	in := s.Inputs()
	require.Len(t, in, 1)
	require.Equal(t, engine.Uint8, in[0].DType)
	const batch = 100
	size := set.Rows * set.Cols
	outs := make([]engine.Tensor, len(s.Outputs()))
	var predictions []int
	correct := 0
	for start := 0; start < len(set.Images); start += batch {
		data := make([]byte, 0, batch*size)
		for _, img := range set.Images[start : start+batch] {
			data = append(data, img...)
		}
		shape := append([]int64{batch}, in[0].Shape[1:]...)
		require.NoError(t, s.Run(context.Background(), []engine.Tensor{{Name: in[0].Name, DType: engine.Uint8, Shape: shape, Data: data}}, outs))
		logits := bytesF32(outs[0].Data)
		require.Len(t, logits, batch*10)
		for i := range batch {
			best := 0
			for c := range 10 {
				if logits[10*i+c] > logits[10*i+best] {
					best = c
				}
			}
			predictions = append(predictions, best)
			if best == int(set.Labels[start+i]) {
				correct++
			}
			if n := start + i; n < len(ref.LogitsFirst8) {
				for c, want := range ref.LogitsFirst8[n] {
					assert.InDelta(t, want, logits[10*i+c], 1e-3, "image %d logit %d", n, c)
				}
			}
		}
	}
	assert.Equal(t, ref.Predictions, predictions)
	assert.InDelta(t, ref.SubsetAccuracy, float64(correct)/float64(len(set.Images)), 1e-6) // the reference is a float32
}
