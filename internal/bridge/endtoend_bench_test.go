package bridge

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/loadgen"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// The end-to-end benchmarks run the LoadGen, the bridge, the host and a
// plugin: the null backend in the host's process (the baseline, the
// LoadGen and bridge alone) and the SDK's echo example as a subprocess
// (sdk.Serve over go-plugin, the sample arena), with the shared rings of
// ABI v1.1 and with gRPC messages only, each in the same run so that
// their ratios do not depend on how busy the machine is.

// endToEndSUT is one way to reach a plugin.
type endToEndSUT struct {
	name string
	open func(b *testing.B) host.Backend
}

func endToEndSUTs() []endToEndSUT {
	return []endToEndSUT{
		{name: "inproc-null", open: func(*testing.B) host.Backend {
			return &echoBackend{Backend: hosttest.New(host.Info{Name: "null"})}
		}},
		{name: "process-echo", open: func(b *testing.B) host.Backend { return openEcho(b, host.Config{}) }},
		{name: "process-echo-messages", open: func(b *testing.B) host.Backend {
			return openEcho(b, host.Config{DisableSharedRing: true})
		}},
	}
}

// openEcho starts the echo example as a subprocess plugin.
func openEcho(b *testing.B, cfg host.Config) host.Backend {
	bin := sdktest.BuildPlugin(b, "../../examples/echo/cmd/echo", "echo")
	be, err := host.Open(b.Context(), host.Plugin{Name: "echo", Kind: manifest.KindProcess, Entry: bin}, cfg)
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	require.NoError(b, be.Load(b.Context(), host.Model{Bytes: []byte("null")}))
	return be
}

// BenchmarkEndToEndOffline runs Offline tests of about a million samples;
// samples/s is what the whole chain sustains.
func BenchmarkEndToEndOffline(b *testing.B) {
	for _, s := range endToEndSUTs() {
		b.Run(s.name, func(b *testing.B) {
			be := s.open(b)
			sut := NewSUT(be, s.name)
			qsl := NewQSL(be, memSet(b, 1024), 0)
			settings := loadgen.DefaultTestSettings()
			settings.Scenario = loadgen.Offline
			settings.MinDuration = time.Second
			settings.OfflineExpectedQPS = 1e6
			dir := b.TempDir()
			var samples int64
			var busy time.Duration
			for b.Loop() {
				before := sut.Stats().Completed
				res, err := loadgen.StartTest(b.Context(), sut, qsl, settings, loadgen.LogSettings{OutDir: dir})
				require.NoError(b, err)
				require.NoError(b, sut.Err())
				samples += sut.Stats().Completed - before
				busy += res.Performance.Duration
			}
			b.ReportMetric(float64(samples)/busy.Seconds(), "samples/s")
			b.ReportMetric(float64(busy.Nanoseconds())/float64(samples), "ns/sample")
		})
	}
}

// BenchmarkEndToEndSingleStream runs SingleStream tests of 20000 queries:
// one sample per query, the next issued when the last completes, so the
// latency percentiles are the chain's round trip.
func BenchmarkEndToEndSingleStream(b *testing.B) {
	for _, s := range endToEndSUTs() {
		b.Run(s.name, func(b *testing.B) {
			be := s.open(b)
			sut := NewSUT(be, s.name)
			qsl := NewQSL(be, memSet(b, 1024), 0)
			settings := loadgen.DefaultTestSettings()
			settings.Scenario = loadgen.SingleStream
			settings.MinDuration = 0
			settings.MinQueryCount = 20000
			settings.SingleStreamExpectedLatency = 100 * time.Microsecond
			dir := b.TempDir()
			var p50, p99 time.Duration
			for b.Loop() {
				res, err := loadgen.StartTest(b.Context(), sut, qsl, settings, loadgen.LogSettings{OutDir: dir})
				require.NoError(b, err)
				require.NoError(b, sut.Err())
				p50 += res.Performance.Latency.At(0.5)
				p99 += res.Performance.Latency.At(0.99)
			}
			b.ReportMetric(float64(p50.Nanoseconds())/1e3/float64(b.N), "p50-µs")
			b.ReportMetric(float64(p99.Nanoseconds())/1e3/float64(b.N), "p99-µs")
		})
	}
}

// BenchmarkEndToEndServer runs Server tests at 5000 QPS for 2 s: Poisson
// arrivals of one-sample queries, latency from the scheduled time. The
// issue delay (how late the LoadGen issued) is reported apart, as the
// part of the latency the SUT did not cause.
func BenchmarkEndToEndServer(b *testing.B) {
	for _, s := range endToEndSUTs() {
		b.Run(s.name, func(b *testing.B) {
			be := s.open(b)
			sut := NewSUT(be, s.name)
			qsl := NewQSL(be, memSet(b, 1024), 0)
			settings := loadgen.DefaultTestSettings()
			settings.Scenario = loadgen.Server
			settings.ServerTargetQPS = 5000
			settings.MinDuration = 2 * time.Second
			settings.MinQueryCount = 1
			dir := b.TempDir()
			var p50, p99, late50, late99 time.Duration
			for b.Loop() {
				res, err := loadgen.StartTest(b.Context(), sut, qsl, settings, loadgen.LogSettings{OutDir: dir})
				require.NoError(b, err)
				require.NoError(b, sut.Err())
				p50 += res.Performance.Latency.At(0.5)
				p99 += res.Performance.Latency.At(0.99)
				if d := res.Performance.IssueDelay; d != nil {
					late50 += d.At(0.5)
					late99 += d.At(0.99)
				}
			}
			n := float64(b.N) * 1e3
			b.ReportMetric(float64(p50.Nanoseconds())/n, "p50-µs")
			b.ReportMetric(float64(p99.Nanoseconds())/n, "p99-µs")
			b.ReportMetric(float64(late50.Nanoseconds())/n, "late-p50-µs")
			b.ReportMetric(float64(late99.Nanoseconds())/n, "late-p99-µs")
		})
	}
}
