package bridge

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/examples/simdevice"
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

// envDuration reads a Go duration from the environment, else def.
func envDuration(b *testing.B, key string, def time.Duration) time.Duration {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	require.NoError(b, err, key)
	return d
}

// The knobs, from the environment: the batcher's deadline in the Server
// runs (MLPERF_BENCH_BATCH_TIMEOUT, default 2ms); the Server latency bound
// (MLPERF_BENCH_LATENCY_BOUND, default ResNet-50's 15ms);
// MLPERF_BENCH_TIME_SCALE=k multiplies the device's costs, the deadline
// and the bound by k, which keeps the queueing the same and makes the
// harness's own per-query time and the machine's scheduling noise k times
// smaller against them (a loaded 2-core machine, whose p99 alone passes
// 15 ms, measures the batcher that way); MLPERF_BENCH_RINGS=off sends the
// subprocess's records as messages only.
var (
	timeScale = func(b *testing.B) time.Duration {
		v := os.Getenv("MLPERF_BENCH_TIME_SCALE")
		if v == "" {
			return 1
		}
		k, err := strconv.Atoi(v)
		require.NoError(b, err, "MLPERF_BENCH_TIME_SCALE")
		return time.Duration(max(k, 1))
	}
	batchingTimeout = func(b *testing.B) time.Duration {
		return timeScale(b) * envDuration(b, "MLPERF_BENCH_BATCH_TIMEOUT", 2*time.Millisecond)
	}
	latencyBound = func(b *testing.B) time.Duration {
		return timeScale(b) * envDuration(b, "MLPERF_BENCH_LATENCY_BOUND", 15*time.Millisecond)
	}
)

// openSimDevice starts the simulated device and loads it for a scenario
// with the given batch timeout.
func openSimDevice(b *testing.B, bin string, sc loadgen.Scenario, timeout time.Duration) host.Backend {
	be, err := host.Open(b.Context(), host.Plugin{Name: "simdevice", Kind: manifest.KindProcess, Entry: bin},
		host.Config{DisableSharedRing: os.Getenv("MLPERF_BENCH_RINGS") == "off"})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	k := timeScale(b)
	require.NoError(b, be.Load(b.Context(), host.Model{
		Options: map[string]string{"batch_timeout": timeout.String(),
			"batch_base": (k * simdevice.DefaultBase).String(), "batch_per_sample": (k * simdevice.DefaultPerSample).String()},
		Run: &host.Run{Scenario: sc.String(), Mode: loadgen.PerformanceOnly.String()},
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

// offlineRate is the Offline samples/s of the device: a short run to
// size the query, then one of about two seconds.
func offlineRate(b *testing.B, bin string) float64 {
	be := openSimDevice(b, bin, loadgen.Offline, 0)
	rate := 20000.0
	for _, d := range []time.Duration{time.Second, 2 * time.Second} {
		res := simRun(b, be, func(s *loadgen.TestSettings) {
			s.Scenario = loadgen.Offline
			s.OfflineExpectedQPS = rate
			s.MinDuration = d
		})
		rate = res.Performance.Metric
		fmt.Printf("batching: offline run of %v: %.0f samples/s\n", d, rate)
	}
	return rate
}

// serverValid runs a Server test at qps and says whether it was VALID
// with p99 within the latency bound.
func serverValid(b *testing.B, be host.Backend, qps float64) bool {
	start := time.Now()
	res := simRun(b, be, func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.Server
		s.ServerTargetQPS = qps
		s.ServerTargetLatency = latencyBound(b)
		s.MinDuration = 2 * time.Second
		// Enough queries for early stopping to judge the p99 at low rates.
		s.MinQueryCount = 2048
	})
	fmt.Printf("batching: server %.0f QPS: valid=%v p99=%v (%v) %s\n", qps, res.Valid,
		res.Performance.Latency.At(0.99).Round(time.Microsecond), time.Since(start).Round(time.Millisecond),
		strings.Join(res.Performance.InvalidReasons, "; "))
	return res.Valid
}

// maxServerQPS searches the highest VALID Server QPS below hi by
// bisection, to within 1% of hi: 0 when nothing tried down to hi/128 was
// VALID.
func maxServerQPS(b *testing.B, be host.Backend, hi float64) float64 {
	lo, floor := 0.0, hi/128
	for hi-lo > hi/100 && hi > floor {
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
		unbatched = maxServerQPS(b, openSimDevice(b, bin, loadgen.Server, 0), offline)
	}
	fmt.Printf("batching: offline=%.0f server=%.0f ratio=%.2f\n", offline, server, server/offline)
	fmt.Printf("batching: without the batcher (batch_timeout 0) server=%.0f ratio=%.3f; batch_timeout %v, latency bound %v, time scale %d\n",
		unbatched, unbatched/offline, timeout, latencyBound(b), timeScale(b))
	b.ReportMetric(offline, "offline-samples/s")
	b.ReportMetric(server, "server-qps")
	b.ReportMetric(server/offline, "ratio")
	b.ReportMetric(unbatched, "unbatched-server-qps")
}
