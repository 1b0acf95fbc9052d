package bridge

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/loadgen"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// The batching benchmark runs the SDK's simulated accelerator
// (examples/simdevice: a batch of n costs 200 µs + n × 2 µs on each of 2
// slots, at most 64 samples) as a subprocess through the host, as a
// vendor's GPU plugin runs: the Offline samples/s it sustains, and the
// highest Server QPS that stays VALID (p99 within 15 ms), found by
// search, with the SDK's batcher (a batch leaves when full or when its
// oldest sample has waited batchTimeout) and without (each one-sample
// query its own batch, the design before the batcher). The device costs no
// CPU, so the ratio server/offline measures how well the batcher fills
// batches, not the machine.

// batchingTimeout is the batcher's deadline in the Server runs; override
// with MLPERF_BENCH_BATCH_TIMEOUT (a Go duration).
func batchingTimeout(b *testing.B) time.Duration {
	d := 2 * time.Millisecond
	if v := os.Getenv("MLPERF_BENCH_BATCH_TIMEOUT"); v != "" {
		var err error
		d, err = time.ParseDuration(v)
		require.NoError(b, err, "MLPERF_BENCH_BATCH_TIMEOUT")
	}
	return d
}

// openSimDevice starts the simulated device and loads it for a scenario
// with the given batch timeout.
func openSimDevice(b *testing.B, bin string, sc loadgen.Scenario, timeout time.Duration) host.Backend {
	be, err := host.Open(b.Context(), host.Plugin{Name: "simdevice", Kind: manifest.KindProcess, Entry: bin}, host.Config{})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	require.NoError(b, be.Load(b.Context(), host.Model{
		Options: map[string]string{"batch_timeout": timeout.String()},
		Run:     &host.Run{Scenario: sc.String(), Mode: loadgen.PerformanceOnly.String()},
	}))
	return be
}

// simRun runs one LoadGen test against be.
func simRun(b *testing.B, be host.Backend, tune func(*loadgen.TestSettings)) loadgen.Result {
	sut := NewSUT(be, "simdevice")
	qsl := NewQSL(be, memSet(b, 1024), 0)
	s := loadgen.DefaultTestSettings()
	tune(&s)
	res, err := loadgen.StartTest(b.Context(), sut, qsl, s, loadgen.LogSettings{OutDir: b.TempDir()})
	require.NoError(b, err)
	require.NoError(b, sut.Err())
	return res
}

// offlineRate is the Offline samples/s of the device.
func offlineRate(b *testing.B, bin string) float64 {
	be := openSimDevice(b, bin, loadgen.Offline, 0)
	res := simRun(b, be, func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.Offline
		s.OfflineExpectedQPS = 400000
		s.MinDuration = 2 * time.Second
	})
	return res.Performance.Metric
}

// serverValid runs a Server test at qps and says whether it was VALID
// with p99 within 15 ms.
func serverValid(b *testing.B, be host.Backend, qps float64) bool {
	res := simRun(b, be, func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.Server
		s.ServerTargetQPS = qps
		s.ServerTargetLatency = 15 * time.Millisecond
		s.MinDuration = 2 * time.Second
		s.MinQueryCount = 1
	})
	return res.Valid
}

// maxServerQPS searches the highest VALID Server QPS below hi to within
// 1% of hi.
func maxServerQPS(b *testing.B, be host.Backend, hi float64) float64 {
	lo := 0.0
	for hi-lo > hi/100 {
		mid := (lo + hi) / 2
		if serverValid(b, be, mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func BenchmarkBatching(b *testing.B) {
	bin := sdktest.BuildPlugin(b, "../../examples/simdevice/cmd/simdevice", "simdevice")
	timeout := batchingTimeout(b)
	var offline, server, unbatched float64
	for b.Loop() {
		offline = offlineRate(b, bin)
		server = maxServerQPS(b, openSimDevice(b, bin, loadgen.Server, timeout), offline)
		unbatched = maxServerQPS(b, openSimDevice(b, bin, loadgen.Server, 0), offline/4)
	}
	fmt.Printf("batching: offline=%.0f server=%.0f ratio=%.2f\n", offline, server, server/offline)
	fmt.Printf("batching: without the batcher (batch_timeout 0) server=%.0f ratio=%.3f; batch_timeout %v\n",
		unbatched, unbatched/offline, timeout)
	b.ReportMetric(offline, "offline-samples/s")
	b.ReportMetric(server, "server-qps")
	b.ReportMetric(server/offline, "ratio")
	b.ReportMetric(unbatched, "unbatched-server-qps")
}
