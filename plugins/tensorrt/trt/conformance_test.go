package trt

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// TestConformance runs the SDK's conformance kit against the backend on
// the fake CUDA runtime and shim. The fake kernel copies each input row to
// the output of the same size, so every output must echo its sample.
func TestConformance(t *testing.T) {
	t.Parallel()
	// The kit's default samples are 32 bytes: eight float32 per row.
	dynamic := fakePlan("input x float32 -1x8 max=8", "output y float32 -1x8")
	tests := []struct {
		name string
		plan []byte
		opts map[string]string
	}{
		{name: "samples on device", plan: dynamic,
			opts: map[string]string{"streams": "2", "batch_size": "4", "start_from_device": "true"}},
		{name: "samples staged from host", plan: dynamic,
			opts: map[string]string{"streams": "3", "start_from_device": "false", "timeout": "30s"}},
		// A static engine pads every batch to its fixed 4 rows.
		{name: "static engine", plan: fakePlan("input x uint8 4x32", "output y uint8 4x32"),
			opts: map[string]string{"streams": "1", "devices": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 2, 1<<26)
			newBackend := func() sdk.Backend {
				b, err := New(f.config())
				require.NoError(t, err)
				return b
			}
			sdktest.Config{
				Model:    sdk.Model{Bytes: tt.plan, Options: tt.opts},
				Check:    sdktest.Echo,
				BadModel: &sdk.Model{Bytes: []byte("not a plan"), Options: tt.opts},
				New:      newBackend,
			}.Run(t, newBackend())
		})
	}
}
