package trt

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
// fake runtime with zero kernel time and 16-byte samples, so the fake's
// copies cost next to nothing: every lane busy (MaxInFlight callers), each
// query one batch, output wanted. Samples sit on the device (gathered with
// one device-to-device copy each) or on the host (staged through pinned
// memory with one copy per batch). The figure still includes the fake
// runtime's thread hand-offs on the same CPUs, so it is an upper bound.
func BenchmarkInferOverhead(b *testing.B) {
	for _, residency := range []string{"true", "false"} {
		for _, batch := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("start_from_device=%s/batch=%d", residency, batch), func(b *testing.B) {
				f := newFake(b, 1, 1<<30)
				bk := newBackend(b, f, fakePlan("input x float32 -1x4 max=64", outSimple), map[string]string{
					"streams": "2", "batch_size": strconv.Itoa(batch), "start_from_device": residency,
				})
				var ls []sdk.LoadedSample
				for i := range uint64(64) {
					ls = append(ls, sdk.LoadedSample{Index: i, Data: acceltest.SampleBytes(i, 16)})
				}
				require.NoError(b, bk.LoadSamples(b.Context(), ls))
				queries := make([]sdk.Query, bk.Info().MaxInFlight)
				for g := range queries {
					queries[g] = acceltest.Query(acceltest.Seq(batch), 16, false, true)
				}
				acceltest.ClosedLoop(b, bk, queries)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/sample")
			})
		}
	}
}

// BenchmarkStreamUtilisation shows the plugin keeps every stream of every
// device busy: 2 devices × 2 streams, 2 ms kernels, MaxInFlight callers
// sending one-batch queries. It reports busy time over wall time for each
// stream and for each device (time at least one of its streams ran).
func BenchmarkStreamUtilisation(b *testing.B) {
	const (
		devices, streams = 2, 2
		kernel           = 2 * time.Millisecond
		batch            = 8
	)
	f := newFake(b, devices, 1<<30)
	f.setDelay(int64(kernel), 0)
	cfg := f.config()
	cfg.Streams = streams
	bk, err := New(cfg)
	require.NoError(b, err)
	require.NoError(b, bk.Load(b.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple),
		Options: map[string]string{"batch_size": strconv.Itoa(batch)}}))
	b.Cleanup(func() { _ = bk.Close() })
	queries := make([]sdk.Query, bk.Info().MaxInFlight)
	for g := range queries {
		queries[g] = acceltest.Query(acceltest.Seq(batch), 16, true, true)
	}
	before := f.streams()
	devBefore := make([]int64, devices)
	for d := range devBefore {
		devBefore[d] = f.DeviceBusy(d)
	}
	start := time.Now()
	acceltest.ClosedLoop(b, bk, queries)
	wall := float64(time.Since(start).Nanoseconds())
	after := f.streams()
	minUtil := 1.0
	for i := range after {
		minUtil = min(minUtil, float64(after[i].busyNs-before[i].busyNs)/wall)
	}
	minDev := 1.0
	for d := range devices {
		minDev = min(minDev, float64(f.DeviceBusy(d)-devBefore[d])/wall)
	}
	b.ReportMetric(100*minUtil, "min-stream-util-%")
	b.ReportMetric(100*minDev, "min-device-util-%")
}
