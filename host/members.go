package host

import (
	"context"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// MemberReporter is a backend whose plugin drives members the host cannot
// see, such as several serving engines' endpoints (ABI v1.4,
// [abi.CapMembers]): PluginMembers says what each did since samples were
// last loaded, as [PoolStats] (Completed, Failed, Share, Latency and
// FirstError set; Total is Completed, Rate unset). It returns nil for a plugin
// without the capability.
type MemberReporter interface {
	PluginMembers(ctx context.Context) (*PoolStats, error)
}

var _ MemberReporter = (*processBackend)(nil)

// PluginMembers asks a subprocess or remote plugin with CapMembers.
func (b *processBackend) PluginMembers(ctx context.Context) (*PoolStats, error) {
	if !b.info.Capabilities.Has(abi.CapMembers) {
		return nil, nil
	}
	var resp *backendv1.MembersResponse
	err := unary(ctx, b, opMembers, func(ctx context.Context) (*backendv1.MembersResponse, error) {
		var err error
		resp, err = b.rpc.Members(ctx, &backendv1.MembersRequest{})
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	return membersFrom(b.info, resp.GetMembers()), nil
}

// membersFrom makes a plugin's members' figures a PoolStats.
func membersFrom(info Info, ms []*backendv1.MemberStats) *PoolStats {
	st := &PoolStats{Pool: info.Name, Members: make([]PoolMemberStats, len(ms))}
	var all int64
	for _, m := range ms {
		all += max(m.GetCompleted(), 0)
	}
	for i, m := range ms {
		if st.Latency == "" {
			st.Latency = m.GetLatency()
		}
		n := max(m.GetCompleted(), 0)
		pm := PoolMemberStats{Name: m.GetName(), Plugin: info.Name, Transport: info.Transport, Completed: n,
			Failed: max(m.GetFailed(), 0), Total: n, FirstError: m.GetFirstError()}
		if all > 0 {
			pm.Share = float64(n) / float64(all)
		}
		if n > 0 {
			pm.Latency = LatencyStats{Count: int(n), Min: time.Duration(m.GetLatencyMinNs()), Mean: time.Duration(m.GetLatencyMeanNs()),
				P50: time.Duration(m.GetLatencyP50Ns()), P90: time.Duration(m.GetLatencyP90Ns()),
				P99: time.Duration(m.GetLatencyP99Ns()), Max: time.Duration(m.GetLatencyMaxNs())}
		}
		st.Members[i] = pm
	}
	return st
}
