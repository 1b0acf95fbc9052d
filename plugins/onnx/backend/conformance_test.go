package backend

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// TestConformance runs the SDK's conformance kit on the Go engine with the
// bundled Fashion-MNIST model: every answer must be PyTorch's prediction.
func TestConformance(t *testing.T) {
	t.Parallel()
	set, err := fashionmnist.Load()
	require.NoError(t, err)
	ref, err := fashionmnist.LoadReference()
	require.NoError(t, err)
	const n = 64
	samples := make([]sdk.LoadedSample, n)
	for i := range samples {
		samples[i] = sdk.LoadedSample{Index: uint64(i), Data: set.Images[i]}
	}
	tests := []struct {
		name string
		opts map[string]string
	}{
		{name: "defaults", opts: nil},
		{name: "batch 3, 2 instances", opts: map[string]string{OptBatch: "3", OptInstances: "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sdktest.Config{
				Model:   sdk.Model{Bytes: fashionmnist.Model(), Options: tt.opts},
				Samples: samples,
				Check: func(s sdk.LoadedSample, out []byte) error {
					if got, want := argmax(out), ref.Predictions[s.Index]; got != want {
						return fmt.Errorf("sample %d: class %d, PyTorch says %d", s.Index, got, want)
					}
					return nil
				},
				BadModel: &sdk.Model{Bytes: []byte("not an onnx model")},
				New:      func() sdk.Backend { return New(goengine.New()) },
			}.Run(t, New(goengine.New()))
		})
	}
}
