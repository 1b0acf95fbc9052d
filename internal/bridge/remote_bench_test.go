//go:build unix

package bridge

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/internal/testcerts"
	"github.com/mlperf-host/mlperf-host/loadgen"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// The remote benchmark runs the SDK's echo plugin as a local subprocess
// and, in the same run, served over mutual TLS on loopback (host.StartServed
// and host.ServeRemote, reached with host.OpenRemote, as `mlperf-host serve`
// and `run --remote` do): Offline samples/s, and the Server p99 latency
// at a fixed rate this machine sustains. The differences are what the TCP
// connection, TLS and gRPC messages instead of shared memory add. A third
// leg runs remote in the Network division (each query carries its
// samples' bytes, which serve loads into the plugin first).

// remoteServerQPS is the Server rate of the remote benchmark.
const remoteServerQPS = 2000

// openRemoteEcho serves the echo plugin at bin over mutual TLS on a
// loopback port and opens it as a remote plugin, in the Network division
// when network is set.
func openRemoteEcho(b *testing.B, bin string, network bool) host.Backend {
	dir := b.TempDir()
	ca := testcerts.NewCA(b, dir, "ca")
	valid := time.Now().Add(time.Hour)
	sf, cf := ca.Issue(b, dir, "server", valid), ca.Issue(b, dir, "client", valid)
	ctx, stop := context.WithCancel(b.Context())
	sp, err := host.StartServed(ctx, host.Plugin{Name: "echo", Kind: manifest.KindProcess, Entry: bin}, host.Config{}, nil, io.Discard, 30*time.Second)
	require.NoError(b, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	stc, err := host.ServerTLS(host.TLSFiles{CA: sf.CA, Cert: sf.Cert, Key: sf.Key})
	require.NoError(b, err)
	done := make(chan error, 1)
	go func() { done <- host.ServeRemote(ctx, ln, sp.Reattach, host.ServeConfig{TLS: stc}) }()
	b.Cleanup(func() {
		stop()
		require.NoError(b, <-done)
		sp.Stop()
	})
	ctc, err := host.ClientTLS(host.TLSFiles{CA: cf.CA, Cert: cf.Cert, Key: cf.Key}, "127.0.0.1")
	require.NoError(b, err)
	be, err := host.OpenRemote(b.Context(), host.RemoteConfig{Plugin: "echo", Address: ln.Addr().String(), TLS: ctc, NetworkDivision: network}, host.Config{})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	return be
}

// openLocalEcho starts the echo plugin at bin as a local subprocess.
func openLocalEcho(b *testing.B, bin string) host.Backend {
	be, err := host.Open(b.Context(), host.Plugin{Name: "echo", Kind: manifest.KindProcess, Entry: bin}, host.Config{})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	return be
}

// echoRuns loads be and returns its Offline samples/s and its Server p99
// latency at remoteServerQPS.
func echoRuns(b *testing.B, be host.Backend) (offline float64, p99 time.Duration) {
	require.NoError(b, be.Load(b.Context(), host.Model{Run: &host.Run{Scenario: loadgen.Offline.String(), Mode: loadgen.PerformanceOnly.String()}}))
	res := simRun(b, be, func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.Offline
		s.OfflineExpectedQPS = 200000
		s.MinDuration = time.Second
	})
	offline = res.Performance.Metric
	res = simRun(b, be, func(s *loadgen.TestSettings) {
		s.Scenario = loadgen.Server
		s.ServerTargetQPS = remoteServerQPS
		s.ServerTargetLatency = 100 * time.Millisecond
		s.MinDuration = 2 * time.Second
		s.MinQueryCount = 1
	})
	return offline, res.Performance.Latency.At(0.99)
}

// remoteRounds is how many times each transport runs, interleaved.
const remoteRounds = 3

func BenchmarkRemote(b *testing.B) {
	bin := sdktest.BuildPlugin(b, "../../examples/echo/cmd/echo", "echo")
	var offRatio []float64
	var added, localP99, remoteP99 []time.Duration
	var netRatio []float64
	var netP99 []time.Duration
	for b.Loop() {
		for range remoteRounds {
			lo, lp := echoRuns(b, openLocalEcho(b, bin))
			ro, rp := echoRuns(b, openRemoteEcho(b, bin, false))
			no, np := echoRuns(b, openRemoteEcho(b, bin, true))
			fmt.Printf("remote: round: Offline local %.0f, remote %.0f, network division %.0f samples/s; Server p99 local %v, remote %v, network division %v\n",
				lo, ro, no, lp, rp, np)
			netRatio, netP99 = append(netRatio, no/ro), append(netP99, np)
			offRatio = append(offRatio, ro/lo)
			localP99, remoteP99, added = append(localP99, lp), append(remoteP99, rp), append(added, rp-lp)
		}
	}
	fmt.Printf("remote: medians of %d interleaved rounds: Offline remote/local %.2f; Server at %d QPS p99 local %v, remote %v, added %v\n",
		len(offRatio), median(offRatio), remoteServerQPS, median(localP99), median(remoteP99), median(added))
	fmt.Printf("remote: network division: Offline network/remote %.2f; Server at %d QPS p99 %v\n", median(netRatio), remoteServerQPS, median(netP99))
	b.ReportMetric(median(offRatio), "offline-ratio")
	b.ReportMetric(median(netRatio), "network-offline-ratio")
	b.ReportMetric(float64(median(added))/1e3, "added-p99-us")
}

// median is the middle value of xs (the upper one of an even count).
func median[T int64 | float64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
