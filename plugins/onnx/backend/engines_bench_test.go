//go:build linux || darwin

package backend

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
)

var (
	engThreads = flag.String("engines.threads", "1,0", "thread counts for BenchmarkEngines; 0 is GOMAXPROCS")
	engBatches = flag.String("engines.batches", "1,8", "batch sizes for BenchmarkEngines")
)

func engineOpts(lib string) engine.Options {
	return engine.Options{Threads: 1, MaxBatch: 1, Extra: map[string]string{ort.OptLibrary: lib}}
}

func ints(t testing.TB, s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		require.NoError(t, err)
		if n == 0 {
			n = runtime.GOMAXPROCS(0)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkEngines runs the Go engine and the ONNX Runtime engine side by
// side, through the same engine.Session interface, on the Fashion-MNIST
// CNN and the zoo's MobileNetV2 and ResNet-50: the ratio of their ms/run
// in one run is the Go engine's distance to ONNX Runtime.
func BenchmarkEngines(b *testing.B) {
	lib := ortLibrary(b)
	models := []struct {
		name  string
		build func() []byte
	}{
		{"fashion", fashionmnist.Model},
		{"mobilenetv2", func() []byte { return zoo.MobileNetV2(1) }},
		{"resnet50", func() []byte { return zoo.ResNet50(1) }},
	}
	engines := []engine.Engine{goengine.New(), ort.New()}
	for _, m := range models {
		var model []byte
		for _, threads := range ints(b, *engThreads) {
			for _, batch := range ints(b, *engBatches) {
				for _, e := range engines {
					b.Run(fmt.Sprintf("%s/threads=%d/batch=%d/%s", m.name, threads, batch, e.Name()), func(b *testing.B) {
						if model == nil {
							model = m.build()
						}
						opts := engine.Options{Threads: threads, MaxBatch: batch, Extra: map[string]string{ort.OptLibrary: lib}}
						benchEngine(b, e, model, opts, batch)
					})
				}
			}
		}
	}
}

func benchEngine(b *testing.B, e engine.Engine, model []byte, opts engine.Options, batch int) {
	s, err := e.Load(context.Background(), model, opts)
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
