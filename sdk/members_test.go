//go:build !wasip1

package sdk

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// membersBackend reports two members of its own.
type membersBackend struct{ nullBackend }

func (*membersBackend) Members() []MemberStats {
	return []MemberStats{
		{Name: "http://a:8000", Completed: 3, P50: 2 * time.Millisecond, Max: 5 * time.Millisecond, Latency: "to the last byte"},
		{Name: "http://b:8000", Failed: 1, FirstError: "HTTP 503: busy"},
	}
}

// TestMembers: a MemberReporter advertises CapMembers and answers the
// Members call once loaded; any other backend advertises nothing and
// refuses the call.
func TestMembers(t *testing.T) {
	t.Parallel()
	srv := NewServer(&membersBackend{}, ServerConfig{})
	info := srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major})
	assert.True(t, abi.Capability(info.GetCapabilities()).Has(abi.CapMembers))
	assert.Equal(t, uint32(abi.FailedPrecondition), srv.Members().GetStatus().GetCode(), "before Load")
	require.Equal(t, uint32(abi.OK), srv.Load(t.Context(), &backendv1.LoadRequest{}).GetStatus().GetCode())
	resp := srv.Members()
	require.Equal(t, uint32(abi.OK), resp.GetStatus().GetCode(), resp.GetStatus().GetMessage())
	require.Len(t, resp.GetMembers(), 2)
	a, b := resp.GetMembers()[0], resp.GetMembers()[1]
	assert.Equal(t, "http://a:8000", a.GetName())
	assert.Equal(t, int64(3), a.GetCompleted())
	assert.Equal(t, int64(2e6), a.GetLatencyP50Ns())
	assert.Equal(t, int64(5e6), a.GetLatencyMaxNs())
	assert.Equal(t, "to the last byte", a.GetLatency())
	assert.Equal(t, int64(1), b.GetFailed())
	assert.Equal(t, "HTTP 503: busy", b.GetFirstError())

	plain := NewServer(&nullBackend{}, ServerConfig{})
	info = plain.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major})
	assert.False(t, abi.Capability(info.GetCapabilities()).Has(abi.CapMembers))
	require.Equal(t, uint32(abi.OK), plain.Load(t.Context(), &backendv1.LoadRequest{}).GetStatus().GetCode())
	assert.Equal(t, uint32(abi.FailedPrecondition), plain.Members().GetStatus().GetCode())
}
