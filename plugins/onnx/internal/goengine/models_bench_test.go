package goengine

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

var modelDir = flag.String("models", "../../../../bin/onnx-models", "directory of the perf models written by make onnx-perf-models")

// benchModel measures one inference of batch images: latency per run and
// images per second.
func benchModel(b *testing.B, m []byte, threads, batch int, kernel string) {
	s, err := New().Load(context.Background(), m, engine.Options{Threads: threads, MaxBatch: batch, Extra: map[string]string{OptKernel: kernel}})
	require.NoError(b, err)
	defer s.Close()
	d := s.Inputs()[0]
	shape := append([]int64{int64(batch)}, d.Shape[1:]...)
	in := []engine.Tensor{{Name: d.Name, DType: d.DType, Shape: shape, Data: make([]byte, engine.Elements(shape)*d.DType.Size())}}
	outs := make([]engine.Tensor, len(s.Outputs()))
	ctx := context.Background()
	require.NoError(b, s.Run(ctx, in, outs))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Run(ctx, in, outs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/run")
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "images/s")
}

// BenchmarkModels runs the Fashion-MNIST CNN (committed) and the
// MobileNetV2 and ResNet-50 perf models (make onnx-perf-models) on one
// thread and on all, at batch 1 and 8.
func BenchmarkModels(b *testing.B) {
	models := []struct{ name, path string }{
		{"fashion", "../../fashionmnist/data/model.onnx"},
		{"mobilenetv2", filepath.Join(*modelDir, "mobilenetv2.onnx")},
		{"resnet50", filepath.Join(*modelDir, "resnet50.onnx")},
	}
	for _, mm := range models {
		m, err := os.ReadFile(mm.path)
		if err != nil {
			b.Logf("skipping %s: %v (run make onnx-perf-models)", mm.name, err)
			continue
		}
		for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
			for _, batch := range []int{1, 8} {
				b.Run(fmt.Sprintf("%s/threads=%d/batch=%d", mm.name, threads, batch), func(b *testing.B) {
					benchModel(b, m, threads, batch, "auto")
				})
			}
		}
	}
}
