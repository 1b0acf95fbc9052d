package host

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// TestMembersFrom: a plugin's members become a PoolStats: shares of the
// completed requests, latencies only for members that completed any,
// negative counts from a confused plugin clamped to 0.
func TestMembersFrom(t *testing.T) {
	t.Parallel()
	st := membersFrom(Info{Name: "openai", Transport: TransportProcess}, []*backendv1.MemberStats{
		{Name: "a", Completed: 3, LatencyP50Ns: 2e6, LatencyMaxNs: 9e6, Latency: "to the last byte"},
		{Name: "b", Completed: 1, Failed: 2, FirstError: "HTTP 503"},
		{Name: "c", Completed: -4, Failed: -1, LatencyP50Ns: 7},
	})
	assert.Equal(t, &PoolStats{Pool: "openai", Latency: "to the last byte", Members: []PoolMemberStats{
		{Name: "a", Plugin: "openai", Transport: TransportProcess, Completed: 3, Total: 3, Share: 0.75,
			Latency: LatencyStats{Count: 3, P50: 2 * time.Millisecond, Max: 9 * time.Millisecond}},
		{Name: "b", Plugin: "openai", Transport: TransportProcess, Completed: 1, Failed: 2, Total: 1, Share: 0.25, FirstError: "HTTP 503", Latency: LatencyStats{Count: 1}},
		{Name: "c", Plugin: "openai", Transport: TransportProcess},
	}}, st)
	assert.Equal(t, &PoolStats{Pool: "x", Members: []PoolMemberStats{}}, membersFrom(Info{Name: "x"}, nil))
}

// TestServeForwardsEveryBackendMethod: serve's filters name every method
// of the Backend service, Members (v1.3) among them, so a remote plugin
// answers each call a local one does.
func TestServeForwardsEveryBackendMethod(t *testing.T) {
	t.Parallel()
	desc := backendv1grpc.Backend_ServiceDesc
	var names []string
	for _, m := range desc.Methods {
		names = append(names, "/"+desc.ServiceName+"/"+m.MethodName)
	}
	for _, s := range desc.Streams {
		names = append(names, "/"+desc.ServiceName+"/"+s.StreamName)
	}
	assert.Contains(t, names, backendv1grpc.Backend_Members_FullMethodName)
	for _, n := range names {
		assert.Contains(t, backendFilters, n)
	}
	assert.Len(t, backendFilters, len(names))
}
