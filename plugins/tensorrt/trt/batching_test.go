package trt

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// TestServerBatching: in Server the SDK batches one-sample queries into
// lane batches for the plugin (see acceltest.Batching), each kernel taking
// 2 ms on the fake GPU.
func TestServerBatching(t *testing.T) {
	t.Parallel()
	acceltest.Batching{
		New: func(t *testing.T) (sdk.Backend, func() int) {
			f := newFake(t, 1, 1<<26)
			f.setDelay(int64(2*time.Millisecond), 0)
			b, err := New(f.config())
			require.NoError(t, err)
			return b, func() int { return len(f.batches()) }
		},
		Model: fakePlan("input x uint8 -1x16 max=8", "output y uint8 -1x16"), SampleSize: 16,
		MaxBatch: 8, MaxInFlight: 2,
	}.Test(t)
}

// TestScenarioOptions: Load applies what the host resolved for the run's
// scenario (options.tensorrt.Server.batch_size arrives as batch_size):
// the SDK then cuts batches of that size, and batch_timeout overrides the
// scenario's deadline, 0 turning batching off.
func TestScenarioOptions(t *testing.T) {
	t.Parallel()
	server := sdk.Run{Scenario: sdk.ScenarioServer, Settings: sdk.TestSettings{TargetLatency: 15 * time.Millisecond}}
	tests := []struct {
		name        string
		run         sdk.Run
		opts        map[string]string
		wantBatch   int
		wantTimeout time.Duration
	}{
		{name: "Server: a fifth of the bound", run: server, wantBatch: 8, wantTimeout: 3 * time.Millisecond},
		{name: "Server's batch size", run: server, opts: map[string]string{"batch_size": "2"}, wantBatch: 2,
			wantTimeout: 3 * time.Millisecond},
		{name: "Server's own deadline", run: server, opts: map[string]string{"batch_timeout": "500us"}, wantBatch: 8,
			wantTimeout: 500 * time.Microsecond},
		{name: "batching off", run: server, opts: map[string]string{"batch_timeout": "0s"}, wantBatch: 8},
		{name: "Offline", run: sdk.Run{Scenario: sdk.ScenarioOffline}, wantBatch: 8},
	}
	// One fake for every case, one backend after the other: the batch log
	// is the fake's.
	f := newFake(t, 2, 1<<26)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := New(f.config())
			require.NoError(t, err)
			defer func() { require.NoError(t, b.Close()) }()
			require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple), Options: tt.opts, Run: tt.run}))
			info := b.Info()
			assert.Equal(t, tt.wantBatch, info.MaxBatch)
			assert.Equal(t, tt.wantTimeout, info.BatchTimeout)
			assert.Equal(t, 4, info.MaxInFlight, "2 devices × 2 streams")

			// A query of 5 samples, cut as the SDK cuts it: each call one batch.
			before := len(f.batches())
			require.NoError(t, b.Infer(t.Context(), acceltest.Query(acceltest.Seq(5), 16, true, false), acceltest.NewRecorder()))
			assert.LessOrEqual(t, slices.Max(f.batches()[before:]), tt.wantBatch)
		})
	}
}
