package bridge

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/loadgen"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// The pool benchmark runs pools of simulated accelerators
// (examples/simdevice, each member its own subprocess through the host)
// against one member alone, Offline, in one run: the device time
// dominates (at speed 3 a batch of 64 costs 750 µs + 64 × 750 µs, about
// 49 ms, on each of 2 slots: 2.6 k samples/s per member, a small part of
// what the host moves per core, and long against the milliseconds a
// loaded machine takes to wake a goroutine), so the ratios measure how
// well the pool keeps every member busy, not the machine. Two members of different speeds
// (the slow one's costs three times the fast one's) are measured against
// the sum of their rates alone.

// poolDevice is a simulated device's costs at speed 1 (slow) or 3.
func poolDevice(speed int) map[string]string {
	per := 2250 * time.Microsecond / time.Duration(speed)
	return map[string]string{"batch_base": per.String(), "batch_per_sample": per.String(), "max_batch": "64", "slots": "2"}
}

// openPoolOf opens one simdevice subprocess per speed and makes them a
// pool; a single speed gives the member alone, not a pool of one.
func openPoolOf(b *testing.B, bin string, speeds ...int) host.Backend {
	var members []host.PoolMember
	for i, s := range speeds {
		be, err := host.Open(b.Context(), host.Plugin{Name: "simdevice", Kind: manifest.KindProcess, Entry: bin}, host.Config{})
		require.NoError(b, err)
		members = append(members, host.PoolMember{Name: fmt.Sprintf("sim%d-%dx", i, s), Backend: be, Options: poolDevice(s)})
	}
	be := members[0].Backend
	opts := poolDevice(speeds[0])
	if len(members) > 1 {
		p, err := host.NewPool(b.Context(), members, host.PoolConfig{})
		require.NoError(b, err)
		be, opts = p, nil
	}
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	require.NoError(b, be.Load(b.Context(), host.Model{
		Options: maps.Clone(opts),
		Run:     &host.Run{Scenario: loadgen.Offline.String(), Mode: loadgen.PerformanceOnly.String()},
	}))
	return be
}

// poolOffline is the Offline samples/s of a pool of the given speeds;
// expect is the rate the run is sized for (about 2 s of samples).
func poolOffline(b *testing.B, bin string, expect float64, speeds ...int) float64 {
	res := simRun(b, openPoolOf(b, bin, speeds...), func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.Offline
		s.OfflineExpectedQPS = expect
		s.MinDuration = 2 * time.Second
	})
	return res.Performance.Metric
}

func BenchmarkPool(b *testing.B) {
	bin := sdktest.BuildPlugin(b, "../../examples/simdevice/cmd/simdevice", "simdevice")
	var one, two, four, slow, mixed float64
	for b.Loop() {
		one = poolOffline(b, bin, 2600, 3)
		two = poolOffline(b, bin, 2*one, 3, 3)
		four = poolOffline(b, bin, 4*one, 3, 3, 3, 3)
		slow = poolOffline(b, bin, one/3, 1)
		mixed = poolOffline(b, bin, one+slow, 1, 3)
	}
	fmt.Printf("pool: one member %.0f samples/s; 2 members %.0f (%.2f x one, %.2f of 2); 4 members %.0f (%.2f x one, %.2f of 4)\n",
		one, two, two/one, two/one/2, four, four/one, four/one/4)
	fmt.Printf("pool: slow member (1x) %.0f + fast member (3x) %.0f = %.0f; pool of both %.0f (%.2f of the sum)\n",
		slow, one, slow+one, mixed, mixed/(slow+one))
	b.ReportMetric(one, "one-samples/s")
	b.ReportMetric(two/one/2, "scaling-2")
	b.ReportMetric(four/one/4, "scaling-4")
	b.ReportMetric(mixed/(slow+one), "mixed-of-sum")
}
