package aic

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// TestServerBatching: in Server the SDK batches one-sample queries into
// exec-object batches for the plugin (see acceltest.Batching), each run
// taking 2 ms on the fake card.
func TestServerBatching(t *testing.T) {
	t.Parallel()
	acceltest.Batching{
		New: func(t *testing.T) (sdk.Backend, func() int) {
			f := newFakeQAic(t, 1, 16)
			f.setDelay(int64(2*time.Millisecond), 0)
			b, err := New(f.config())
			require.NoError(t, err)
			return b, func() int { return int(f.Call("fakeqaic_runs")) }
		},
		Model: qpc(8, 4, "input x 16", "output y 16"), SampleSize: 16,
		Options:  map[string]string{"batch_size": "8", "set_size": "2"},
		MaxBatch: 8, MaxInFlight: 2,
	}.Test(t)
}

// TestCompiledBatchAndScenarioPrograms: without batch_size the batch is
// read from the program's buffers and the data set's tensors, and a QPC
// directory with a program of the run's scenario's own loads that one.
func TestCompiledBatchAndScenarioPrograms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "programqpc.bin"), qpc(8, 4, "input x 16", "output y 16"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "Server"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Server", "programqpc.bin"), qpc(2, 4, "input x 16", "output y 16"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "one"), qpc(1, 4, "input x 16", "output y 16"), 0o644))
	inputs := []sdk.TensorSpec{{Name: "x", DType: abi.Uint8, Shape: []int{4, 4}}}
	tests := []struct {
		name      string
		model     sdk.Model
		wantBatch int
		wantErr   string
	}{
		{name: "Offline: the directory's program", wantBatch: 8,
			model: sdk.Model{Path: dir, Inputs: inputs, Run: sdk.Run{Scenario: sdk.ScenarioOffline}}},
		{name: "Server: its own program", wantBatch: 2,
			model: sdk.Model{Path: dir, Inputs: inputs, Run: sdk.Run{Scenario: sdk.ScenarioServer}}},
		{name: "a host that does not say the scenario", wantBatch: 8, model: sdk.Model{Path: dir, Inputs: inputs}},
		{name: "batch_size wins", wantBatch: 4,
			model: sdk.Model{Path: dir, Inputs: inputs, Options: map[string]string{"batch_size": "4"}}},
		// A one-row program, from an older host.
		{name: "no tensors declared: 1, as before", wantBatch: 1, model: sdk.Model{Path: filepath.Join(dir, "one")}},
		{name: "tensors that do not divide the buffer", wantErr: "does not hold a whole batch of tensor x (3 bytes a sample)",
			model: sdk.Model{Path: dir, Inputs: []sdk.TensorSpec{{Name: "x", DType: abi.Uint8, Shape: []int{3}}}}},
		{name: "a dimension that varies", wantErr: "set batch_size",
			model: sdk.Model{Path: dir, Inputs: []sdk.TensorSpec{{Name: "x", DType: abi.Uint8, Shape: []int{abi.Varies}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := New(newFakeQAic(t, 1, 16).config())
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.Close() })
			err = b.Load(t.Context(), tt.model)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantBatch, b.Info().MaxBatch)
		})
	}
}
