package fashionmnist_test

import (
	"context"
	"encoding/binary"
	"math"
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
	correct, agree := 0, 0
	runBatches(t, s, set, batch, func(b0 int, outs []engine.Tensor) {
		for i := range batch {
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
	acc := float64(correct) / float64(len(set.Images))
	t.Logf("Go engine accuracy %.4f, PyTorch %.4f, agreement %d/%d", acc, ref.SubsetAccuracy, agree, len(set.Images))
	assert.Equal(t, len(set.Images), agree, "predictions differ from PyTorch")
	assert.InDelta(t, ref.SubsetAccuracy, acc, 1e-6)
	assert.Greater(t, acc, 0.85)
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
	runBatches(t, s, set, batch, func(b0 int, outs []engine.Tensor) {
		require.Len(t, outs[0].Data, 4*batch)
		for i := range batch {
			cls := math.Float32frombits(binary.LittleEndian.Uint32(outs[0].Data[4*i:]))
			require.InDelta(t, float32(ref.Predictions[b0+i]), cls, 0, "image %d", b0+i)
		}
	})
}

// runBatches runs the whole set through s in batches and hands each
// batch's outputs, with its first image's index, to check.
func runBatches(t *testing.T, s engine.Session, set *fashionmnist.Set, batch int, check func(b0 int, outs []engine.Tensor)) {
	t.Helper()
	outs := make([]engine.Tensor, 1)
	for b0 := 0; b0 < len(set.Images); b0 += batch {
		var data []byte
		for _, img := range set.Images[b0 : b0+batch] {
			data = append(data, img...)
		}
		in := []engine.Tensor{{Name: "image", DType: engine.Uint8, Shape: []int64{int64(batch), 1, 28, 28}, Data: data}}
		require.NoError(t, s.Run(context.Background(), in, outs))
		check(b0, outs)
	}
}
