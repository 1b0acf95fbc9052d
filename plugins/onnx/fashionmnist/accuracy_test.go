package fashionmnist_test

import (
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
)

// TestGoEngineAccuracy runs the whole embedded subset through the Go
// engine and checks it against PyTorch: the same predicted class for every
// image, hence the same accuracy, and logits within 1e-4.
func TestGoEngineAccuracy(t *testing.T) {
	t.Parallel()
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	ref, err := fashionmnist.LoadReference()
	require.NoError(t, err)
	s, err := goengine.New().Load(context.Background(), fashionmnist.Model(), engine.Options{MaxBatch: 100})
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, []engine.TensorDesc{{Name: "image", DType: engine.Uint8, Shape: []int64{-1, 1, 28, 28}}}, s.Inputs())
	require.Equal(t, []engine.TensorDesc{{Name: "logits", DType: engine.Float32, Shape: []int64{-1, 10}}}, s.Outputs())

	const batch = 100
	n := checkedImages(set)
	correct, agree := 0, 0
	runBatches(t, s, set, n, batch, func(b0, k int, outs []engine.Tensor) {
		for i := range k {
			logits := make([]float32, 10)
			for c := range logits {
				logits[c] = math.Float32frombits(binary.LittleEndian.Uint32(outs[0].Data[4*(10*i+c):]))
			}
			idx := b0 + i
			if idx < len(ref.LogitsFirst8) {
				assert.InDeltaSlice(t, ref.LogitsFirst8[idx], logits, 1e-4, "image %d", idx)
			}
			pred := argmax(logits)
			if pred == int(set.Labels[idx]) {
				correct++
			}
			if pred == ref.Predictions[idx] {
				agree++
			}
		}
	})
	t.Logf("Go engine: %d of %d images right, agreement with PyTorch %d/%d", correct, n, agree, n)
	assert.Equal(t, n, agree, "predictions differ from PyTorch")
	if n == len(set.Images) {
		acc := float64(correct) / float64(n)
		assert.InDelta(t, ref.SubsetAccuracy, acc, 1e-6)
		assert.Greater(t, acc, 0.85)
	}
}

// wasmImages is how many images the GOOS=wasip1 build of these tests runs
// (make onnx-wasm-test): the whole subset, twice, took minutes in wazero on
// a busy 2-core machine. The WASM build's accuracy on every image is
// cmd/mlperf-host's TestDemoAccuracy (the onnx plugin in the host's
// wazero: 887 of 1000); natively these tests run every image.
const wasmImages = 200

// checkedImages is how many of the set's images the tests run here.
func checkedImages(set *fashionmnist.Set) int {
	if runtime.GOOS == "wasip1" {
		return min(wasmImages, len(set.Images))
	}
	return len(set.Images)
}

func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// TestClassModel runs the served model, whose response is the class as a
// float32: the same class as argmax over the logits model's output for
// every image.
func TestClassModel(t *testing.T) {
	t.Parallel()
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	ref, err := fashionmnist.LoadReference()
	require.NoError(t, err)
	m, err := fashionmnist.ClassModel()
	require.NoError(t, err)
	s, err := goengine.New().Load(context.Background(), m, engine.Options{MaxBatch: 250})
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, []engine.TensorDesc{{Name: fashionmnist.ClassOutput, DType: engine.Float32, Shape: []int64{-1}}}, s.Outputs())
	const batch = 250
	runBatches(t, s, set, checkedImages(set), batch, func(b0, k int, outs []engine.Tensor) {
		require.Len(t, outs[0].Data, 4*k)
		for i := range k {
			cls := math.Float32frombits(binary.LittleEndian.Uint32(outs[0].Data[4*i:]))
			require.InDelta(t, float32(ref.Predictions[b0+i]), cls, 0, "image %d", b0+i)
		}
	})
}

// runBatches runs the set's first n images through s in batches of at
// most batch and hands each batch's outputs, with its first image's index
// and its size, to check.
func runBatches(t *testing.T, s engine.Session, set *fashionmnist.Set, n, batch int, check func(b0, k int, outs []engine.Tensor)) {
	t.Helper()
	outs := make([]engine.Tensor, 1)
	for b0 := 0; b0 < n; b0 += batch {
		k := min(batch, n-b0)
		var data []byte
		for _, img := range set.Images[b0 : b0+k] {
			data = append(data, img...)
		}
		in := []engine.Tensor{{Name: "image", DType: engine.Uint8, Shape: []int64{int64(k), 1, 28, 28}, Data: data}}
		require.NoError(t, s.Run(context.Background(), in, outs))
		check(b0, k, outs)
	}
}
