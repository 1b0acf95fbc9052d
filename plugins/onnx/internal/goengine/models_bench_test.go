package goengine

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
)

// zooOrFile reads name from -models when set, else builds the zoo model.
func zooOrFile(name string, build func(uint64) []byte) func() ([]byte, error) {
	return func() ([]byte, error) {
		if *modelDir != "" {
			return os.ReadFile(filepath.Join(*modelDir, name))
		}
		return build(1), nil
	}
}

var (
	modelDir     = flag.String("models", "", "directory with resnet50.onnx and mobilenetv2.onnx to benchmark instead of the zoo's (make onnx-perf-models)")
	benchThreads = flag.String("threads", "1,0", "comma-separated thread counts for BenchmarkModels; 0 is GOMAXPROCS")
	benchBatches = flag.String("batches", "1,8", "comma-separated batch sizes for BenchmarkModels")
	benchSplit   = flag.String("split", "auto", "comma-separated batch_split values for BenchmarkModels (auto, on, off)")
)

func intList(t testing.TB, s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(t, err, "list %q", s)
		if n == 0 {
			n = runtime.GOMAXPROCS(0)
		}
		out = append(out, n)
	}
	return out
}

// benchModel measures one inference of batch images: latency per run and
// images per second.
func benchModel(b *testing.B, m []byte, threads, batch int, kernel, split string) {
	s, err := New().Load(context.Background(), m, engine.Options{Threads: threads, MaxBatch: batch,
		Extra: map[string]string{OptKernel: kernel, OptBatchSplit: split}})
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

// BenchmarkModels runs the Fashion-MNIST CNN (committed) and the zoo's
// random-weight MobileNetV2 and ResNet-50 v1.5 (or the files in -models)
// for each of -threads, -batches and -split.
func BenchmarkModels(b *testing.B) {
	models := []struct {
		name string
		m    func() ([]byte, error)
	}{
		{"fashion", func() ([]byte, error) { return os.ReadFile("../../fashionmnist/data/model.onnx") }},
		{"mobilenetv2", zooOrFile("mobilenetv2.onnx", zoo.MobileNetV2)},
		{"resnet50", zooOrFile("resnet50.onnx", zoo.ResNet50)},
	}
	for _, mm := range models {
		var model []byte
		get := func(b *testing.B) []byte {
			if model == nil {
				var err error
				model, err = mm.m()
				require.NoError(b, err)
			}
			return model
		}
		for _, threads := range intList(b, *benchThreads) {
			for _, batch := range intList(b, *benchBatches) {
				for _, split := range strings.Split(*benchSplit, ",") {
					name := fmt.Sprintf("%s/threads=%d/batch=%d", mm.name, threads, batch)
					if *benchSplit != "auto" {
						name += "/split=" + split
					}
					b.Run(name, func(b *testing.B) {
						benchModel(b, get(b), threads, batch, "auto", split)
					})
				}
			}
		}
	}
}
