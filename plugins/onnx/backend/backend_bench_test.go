package backend

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// nopCompleter drops results: the benchmark measures the backend alone.
type nopCompleter struct{}

func (nopCompleter) Complete(uint64, []byte, int64) {}
func (nopCompleter) FirstToken(uint64, []byte)      {}
func (nopCompleter) Fail(uint64, error)             {}

// BenchmarkInfer is one Fashion-MNIST query of 1 or 32 samples through
// the backend (batching, engine run, per-sample responses) on one thread.
func BenchmarkInfer(b *testing.B) {
	set, err := fashionmnist.Load()
	require.NoError(b, err)
	for _, n := range []int{1, 32} {
		b.Run(fmt.Sprintf("fashion/samples=%d", n), func(b *testing.B) {
			be := New(goengine.New())
			require.NoError(b, be.Load(context.Background(), sdk.Model{Bytes: fashionmnist.Model(),
				Options: map[string]string{OptThreads: "1", OptBatch: "32"}}))
			defer be.Close()
			require.NoError(b, be.Warmup(context.Background()))
			q := sdk.Query{}
			for i := range n {
				q.Samples = append(q.Samples, sdk.Sample{ID: uint64(i), Data: set.Images[i], WantOutput: true})
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := be.Infer(context.Background(), q, nopCompleter{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
