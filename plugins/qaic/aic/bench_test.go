package aic

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// BenchmarkInferOverhead measures the plugin's cost per sample against the
// fake runtime with zero run time and 16-byte samples loaded on the host:
// MaxInFlight callers, one batch per query. It includes the fake's queue
// threads and hand-offs on the same CPUs, so it is an upper bound.
func BenchmarkInferOverhead(b *testing.B) {
	for _, batch := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			f := newFakeQAic(b, 1, 16)
			bk := newLoaded(b, f, qpc(batch, 4, "input x 16", "output y 16"), map[string]string{
				"batch_size": strconv.Itoa(batch), "set_size": "2",
			})
			var ls []sdk.LoadedSample
			for i := range uint64(batch) {
				ls = append(ls, sdk.LoadedSample{Index: i, Data: acceltest.SampleBytes(i, 16)})
			}
			require.NoError(b, bk.LoadSamples(b.Context(), ls))
			queries := make([]sdk.Query, bk.Info().MaxInFlight)
			for g := range queries {
				queries[g] = samplesOf(batch, 16, false, true)
			}
			acceltest.ClosedLoop(b, bk, queries)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/sample")
		})
	}
}

// BenchmarkActivationUtilisation shows the plugin keeps every activation of
// every device busy: 2 devices × 2 activations × 2 exec objects, 2 ms runs,
// MaxInFlight callers. It reports busy time over wall time per activation
// and per device.
func BenchmarkActivationUtilisation(b *testing.B) {
	const devices = 2
	f := newFakeQAic(b, devices, 16)
	f.setDelay(int64(2*time.Millisecond), 0)
	cfg := f.config()
	cfg.Activations, cfg.SetSize, cfg.BatchSize = 2, 2, 8
	bk, err := New(cfg)
	require.NoError(b, err)
	require.NoError(b, bk.Load(b.Context(), sdk.Model{Bytes: qpc(8, 4, "input x 16", "output y 16")}))
	b.Cleanup(func() { _ = bk.Close() })
	queries := make([]sdk.Query, bk.Info().MaxInFlight)
	for g := range queries {
		queries[g] = samplesOf(8, 16, true, true)
	}
	before := f.programs()
	devBefore := []int64{f.DeviceBusy(0), f.DeviceBusy(1)}
	start := time.Now()
	acceltest.ClosedLoop(b, bk, queries)
	wall := float64(time.Since(start).Nanoseconds())
	minAct := 1.0
	for i, p := range f.programs() {
		minAct = min(minAct, float64(p.busyNs-before[i].busyNs)/wall)
	}
	minDev := 1.0
	for d := range devices {
		minDev = min(minDev, float64(f.DeviceBusy(d)-devBefore[d])/wall)
	}
	b.ReportMetric(100*minAct, "min-activation-util-%")
	b.ReportMetric(100*minDev, "min-device-util-%")
}
