//go:build linux || darwin

package ort

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

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort/bench"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
)

var (
	benchModels  = flag.String("models", "", "directory with resnet50.onnx and mobilenetv2.onnx to benchmark instead of the zoo's (make onnx-perf-models)")
	benchThreads = flag.String("threads", "1,0", "comma-separated thread counts for BenchmarkModels; 0 is runtime.NumCPU()")
	benchBatches = flag.String("batches", "1,8", "comma-separated batch sizes for BenchmarkModels")
)

// benchList parses a comma-separated list of counts, 0 meaning NumCPU.
func benchList(b *testing.B, s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(b, err, "list %q", s)
		if n == 0 {
			n = runtime.NumCPU()
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkModels runs the Fashion-MNIST CNN and the zoo's random-weight
// MobileNetV2 and ResNet-50 v1.5 (or the files in -models) through the
// ORT engine for each of -threads and -batches, with the same input
// pattern as ortcompare. bench/ortcompare compares the same runs with raw
// ONNX Runtime.
func BenchmarkModels(b *testing.B) {
	e := newEngine(b)
	fromZoo := func(file string, build func(uint64) []byte) func() ([]byte, error) {
		return func() ([]byte, error) {
			if *benchModels != "" {
				return os.ReadFile(filepath.Join(*benchModels, file))
			}
			return build(1), nil
		}
	}
	models := []struct {
		name  string
		bytes func() ([]byte, error)
	}{
		{"fashion", func() ([]byte, error) { return fashionmnist.Model(), nil }},
		{"mobilenetv2", fromZoo("mobilenetv2.onnx", zoo.MobileNetV2)},
		{"resnet50", fromZoo("resnet50.onnx", zoo.ResNet50)},
	}
	for _, m := range models {
		var model []byte
		for _, threads := range benchList(b, *benchThreads) {
			for _, batch := range benchList(b, *benchBatches) {
				b.Run(fmt.Sprintf("%s/threads=%d/batch=%d", m.name, threads, batch), func(b *testing.B) {
					if model == nil {
						var err error
						model, err = m.bytes()
						require.NoError(b, err)
					}
					benchRun(b, e, model, threads, batch)
				})
			}
		}
	}
}

// benchRun measures Run on one batch: ms per run and images per second.
func benchRun(b *testing.B, e *Engine, model []byte, threads, batch int) {
	s, err := e.Load(context.Background(), model, engine.Options{Threads: threads, MaxBatch: batch})
	require.NoError(b, err)
	defer s.Close()
	in, err := bench.PatternInput(s.Inputs(), batch)
	require.NoError(b, err)
	outs := make([]engine.Tensor, len(s.Outputs()))
	ctx := context.Background()
	for range 3 {
		require.NoError(b, s.Run(ctx, in, outs))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Run(ctx, in, outs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/run")
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "images/s")
}
