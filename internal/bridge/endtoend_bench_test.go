package bridge

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/internal/abicompat"
	"github.com/mlperf-host/mlperf-host/loadgen"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// The end-to-end benchmarks run the LoadGen, the bridge, the host and a
// plugin: the null backend in the host's process (the baseline, the
// LoadGen and bridge alone) and the SDK's echo example as a subprocess
// (sdk.Serve over go-plugin, the sample arena), with the shared rings of
// ABI v1.1 and with gRPC messages only, and the same echo built by the SDK
// of ABI v1.1 (a pinned commit, internal/abicompat: the SDK before the
// v1.2 batcher), each in the same run so that their ratios do not depend
// on how busy the machine is.

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
		{name: "process-echo-sdk-v1.1", open: openReleaseEcho},
	}
}

// openReleaseEcho starts the echo example as the SDK of the latest
// released minor (v1.1) built it.
func openReleaseEcho(b *testing.B) host.Backend {
	rel := abicompat.Latest()
	bin := filepath.Join(b.TempDir(), "echo")
	err := rel.Build(b.Context(), ".", "examples/echo/cmd/echo", bin)
	if errors.Is(err, abicompat.ErrNoHistory) {
		b.Skipf("cannot build the %s echo: %v", rel.Name(), err)
	}
	require.NoError(b, err)
	return openEchoBinary(b, bin, host.Config{})
}

// openEcho starts the echo example as a subprocess plugin.
func openEcho(b *testing.B, cfg host.Config) host.Backend {
	return openEchoBinary(b, sdktest.BuildPlugin(b, "../../examples/echo/cmd/echo", "echo"), cfg)
}

// openEchoBinary starts an echo binary and loads it.
func openEchoBinary(b *testing.B, bin string, cfg host.Config) host.Backend {
	be, err := host.Open(b.Context(), host.Plugin{Name: "echo", Kind: manifest.KindProcess, Entry: bin}, cfg)
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	require.NoError(b, be.Load(b.Context(), host.Model{Bytes: []byte("null")}))
	return be
}

// runEndToEnd runs the test settings describe once per iteration against
// each SUT, handing every result to add, then calls report.
func runEndToEnd(b *testing.B, tune func(*loadgen.TestSettings), add func(*loadgen.PerformanceResult, *SUT), report func(b *testing.B)) {
	for _, s := range endToEndSUTs() {
		b.Run(s.name, func(b *testing.B) {
			be := s.open(b)
			sut := NewSUT(be, s.name)
			qsl := NewQSL(be, memSet(b, 1024), 0)
			settings := loadgen.DefaultTestSettings()
			tune(&settings)
			dir := b.TempDir()
			for b.Loop() {
				res, err := loadgen.StartTest(b.Context(), sut, qsl, settings, loadgen.LogSettings{OutDir: dir})
				require.NoError(b, err)
				require.NoError(b, sut.Err())
				add(res.Performance, sut)
			}
			report(b)
		})
	}
}

// latencies sums a run's percentiles over iterations.
type latencies struct{ p50, p99 time.Duration }

func (l *latencies) add(s *loadgen.LatencyStats) {
	l.p50 += s.At(0.5)
	l.p99 += s.At(0.99)
}

// report reports the means over b.N iterations, prefixed.
func (l *latencies) report(b *testing.B, prefix string) {
	n := float64(b.N) * 1e3
	b.ReportMetric(float64(l.p50.Nanoseconds())/n, prefix+"p50-µs")
	b.ReportMetric(float64(l.p99.Nanoseconds())/n, prefix+"p99-µs")
	*l = latencies{}
}

// BenchmarkEndToEndOffline runs Offline tests of about a million samples;
// samples/s is what the whole chain sustains.
func BenchmarkEndToEndOffline(b *testing.B) {
	var samples, before int64
	var busy time.Duration
	runEndToEnd(b, func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.Offline
		s.MinDuration = time.Second
		s.OfflineExpectedQPS = 1e6
	}, func(res *loadgen.PerformanceResult, sut *SUT) {
		samples += sut.Stats().Completed - before
		before = sut.Stats().Completed
		busy += res.Duration
	}, func(b *testing.B) {
		b.ReportMetric(float64(samples)/busy.Seconds(), "samples/s")
		b.ReportMetric(float64(busy.Nanoseconds())/float64(samples), "ns/sample")
		samples, before, busy = 0, 0, 0
	})
}

// BenchmarkEndToEndSingleStream runs SingleStream tests of 20000 queries:
// one sample per query, the next issued when the last completes, so the
// latency percentiles are the chain's round trip.
func BenchmarkEndToEndSingleStream(b *testing.B) {
	var lat latencies
	runEndToEnd(b, func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.SingleStream
		s.MinDuration = 0
		s.MinQueryCount = 20000
		s.SingleStreamExpectedLatency = 100 * time.Microsecond
	}, func(res *loadgen.PerformanceResult, _ *SUT) {
		lat.add(&res.Latency)
	}, func(b *testing.B) { lat.report(b, "") })
}

// BenchmarkEndToEndServer runs Server tests at 5000 QPS for 2 s: Poisson
// arrivals of one-sample queries, latency from the scheduled time. The
// issue delay (how late the LoadGen issued) is reported apart, as the
// part of the latency the SUT did not cause.
func BenchmarkEndToEndServer(b *testing.B) {
	var lat, late latencies
	runEndToEnd(b, func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.Server
		s.ServerTargetQPS = 5000
		s.MinDuration = 2 * time.Second
		s.MinQueryCount = 1
	}, func(res *loadgen.PerformanceResult, _ *SUT) {
		lat.add(&res.Latency)
		if res.IssueDelay != nil {
			late.add(res.IssueDelay)
		}
	}, func(b *testing.B) {
		lat.report(b, "")
		late.report(b, "late-")
	})
}
