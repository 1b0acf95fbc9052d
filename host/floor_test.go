package host

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// BenchmarkGRPCPingFloor measures a unary Ping to the fake subprocess
// plugin: the round trip of gRPC itself over go-plugin's connection, the
// floor under BenchmarkServer/process.
func BenchmarkGRPCPingFloor(b *testing.B) {
	be, err := Open(b.Context(), fakeProcess(b), Config{Env: []string{fakePluginEnv + "=" + fakeEcho}})
	require.NoError(b, err)
	defer be.Close()
	rpc := be.(*processBackend).rpc
	req := &backendv1.PingRequest{}
	lat := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := rpc.Ping(b.Context(), req); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}
