package aic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// TestConformance runs the SDK's conformance kit against the backend on
// the fake libQAic. The fake program copies each input row to the output
// of the same size, so every output must echo its sample.
func TestConformance(t *testing.T) {
	t.Parallel()
	// The kit's default samples are 32 bytes.
	tests := []struct {
		name    string
		program []byte
		opts    map[string]string
	}{
		{name: "batch 1", program: qpc(1, 4, "input x 32", "output y 32"),
			opts: map[string]string{"activations": "2", "set_size": "2"}},
		// Partial batches: the kit's queries are rarely multiples of 4.
		{name: "compiled batch 4", program: qpc(4, 4, "input x 32", "output y 32"),
			opts: map[string]string{"batch_size": "4", "set_size": "3", "devices": "1"}},
		{name: "completion by callback", program: qpc(2, 4, "input x 32", "output y 32"),
			opts: map[string]string{"batch_size": "2", "completion": "callback"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeQAic(t, 2, 16)
			newBackend := func() sdk.Backend {
				b, err := New(f.config())
				require.NoError(t, err)
				return b
			}
			sdktest.Config{
				Model:    sdk.Model{Bytes: tt.program, Options: tt.opts},
				Check:    sdktest.Echo,
				BadModel: &sdk.Model{Bytes: []byte("not a QPC"), Options: tt.opts},
				New:      newBackend,
			}.Run(t, newBackend())
		})
	}
}
