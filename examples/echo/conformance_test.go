package echo_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mlperf-host/mlperf-host/examples/echo"
	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  echo.Config
	}{
		{name: "defaults", cfg: echo.Config{}},
		// One sample per call, one call at a time: the dispatcher splits
		// and queues the most.
		{name: "batch 1", cfg: echo.Config{MaxBatch: 1, MaxInFlight: 1}},
		{name: "wide", cfg: echo.Config{MaxBatch: 7, MaxInFlight: 8, FirstTokens: true}},
		// Samples of several queries batched, each waiting at most 1 ms.
		{name: "batching", cfg: echo.Config{MaxBatch: 4, MaxInFlight: 2, BatchTimeout: time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sdktest.Config{
				Check:    sdktest.Echo,
				BadModel: &sdk.Model{Bytes: echo.BadModel},
				New:      func() sdk.Backend { return echo.New(tt.cfg) },
			}.Run(t, echo.New(tt.cfg))
		})
	}
}

// TestConformanceTensors: samples of three tensors of their own lengths;
// echo answers each with the tensors it read by name.
func TestConformanceTensors(t *testing.T) {
	t.Parallel()
	inputs, samples := sdktest.TensorSamples(40)
	sdktest.Config{
		Model:   sdk.Model{Inputs: inputs},
		Samples: samples,
		Check: func(s sdk.LoadedSample, out []byte) error {
			got, err := echo.DecodeTensors(out)
			if err != nil {
				return err
			}
			if len(got) != len(s.Tensors) {
				return fmt.Errorf("%d tensors echoed, the sample has %d", len(got), len(s.Tensors))
			}
			for k, want := range s.Tensors {
				g := got[k]
				if g.Name != want.Name || g.DType != want.DType || !slices.Equal(g.Shape, want.Shape) || !bytes.Equal(g.Data, want.Data) {
					return fmt.Errorf("tensor %d echoed as %s %s%v, loaded as %s %s%v", k, g.Name, g.DType, g.Shape, want.Name, want.DType, want.Shape)
				}
			}
			return nil
		},
		New: func() sdk.Backend { return echo.New(echo.Config{}) },
	}.Run(t, echo.New(echo.Config{MaxBatch: 5, BatchTimeout: time.Millisecond}))
}
