package bridge

import (
	"fmt"
	"time"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

var _ loadgen.SUTReporter = (*SUT)(nil)

// pooled is a backend made of members: a *host.Pool.
type pooled interface {
	Members() []host.PoolMemberInfo
	Stats() host.PoolStats
}

// SUTStartEntries says, when the test starts, what the SUT is made of: a
// pool's members. A single local plugin adds nothing.
func (s *SUT) SUTStartEntries() []loadgen.DetailEntry {
	var out []loadgen.DetailEntry
	if p, ok := s.b.(pooled); ok {
		var ms []mllog.PoolMemberStart
		for _, m := range p.Members() {
			ms = append(ms, mllog.PoolMemberStart{Name: m.Name, Plugin: m.Info.Name, Version: m.Info.Version, Transport: string(m.Info.Transport)})
		}
		out = append(out, loadgen.DetailEntry{Key: mllog.KeyPoolMembers, Value: ms})
	}
	return out
}

// SUTPerformanceReport gives a pool's members' shares and latencies in the
// timed pass: a summary section and one detail entry per member.
func (s *SUT) SUTPerformanceReport() loadgen.SUTReport {
	p, ok := s.b.(pooled)
	if !ok {
		return loadgen.SUTReport{}
	}
	return PoolReport(p.Stats())
}

// PoolReport is the summary section and the detail entries of a pool's
// statistics.
func PoolReport(st host.PoolStats) loadgen.SUTReport {
	r := loadgen.SUTReport{Title: "Pool Members"}
	r.Lines = append(r.Lines, fmt.Sprintf("pool : %s, %d members; latency from a sample's arrival in the pool to its completion", st.Pool, len(st.Members)))
	for _, m := range st.Members {
		l := m.Latency
		r.Lines = append(r.Lines, fmt.Sprintf("%s (%s, %s) : %d samples (%.2f%%), %d failed, p50 %v p90 %v p99 %v max %v",
			m.Name, m.Plugin, m.Transport, m.Completed, 100*m.Share, m.Failed, round(l.P50), round(l.P90), round(l.P99), round(l.Max)))
		r.Detail = append(r.Detail, loadgen.DetailEntry{Key: mllog.KeyPoolMember, Value: mllog.PoolMemberEntry{
			Name: m.Name, Plugin: m.Plugin, Transport: string(m.Transport), Samples: m.Completed, Failed: m.Failed,
			Share: m.Share, Rate: m.Rate,
			Latency: map[string]int64{"min": int64(l.Min), "mean": int64(l.Mean), "p50": int64(l.P50), "p90": int64(l.P90),
				"p99": int64(l.P99), "max": int64(l.Max)},
		}})
	}
	return r
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d
}
