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
// pool's members; for a subprocess plugin the host started, whether the
// processes it starts die with it. A WASM plugin adds nothing.
func (s *SUT) SUTStartEntries() []loadgen.DetailEntry {
	var out []loadgen.DetailEntry
	if p, ok := s.b.(host.ProcessTreeReporter); ok {
		if t, ok := p.ProcessTree(); ok {
			out = append(out, loadgen.DetailEntry{Key: mllog.KeyProcessTree,
				Value: mllog.ProcessTreeEntry{Contained: t.Contained, How: t.How, Why: t.Why, Text: t.String()}})
		}
	}
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
// A plugin that reports members of its own (host.MemberReporter: the
// endpoints of serving engines) gets the same, titled Plugin Members.
func (s *SUT) SUTPerformanceReport() loadgen.SUTReport {
	if p, ok := s.b.(pooled); ok {
		return PoolReport(p.Stats())
	}
	r, ok := s.b.(host.MemberReporter)
	if !ok {
		return loadgen.SUTReport{}
	}
	st, err := r.PluginMembers(s.reportCtx)
	if err != nil {
		return loadgen.SUTReport{Title: "Plugin Members", Lines: []string{"members : not reported: " + err.Error()}}
	}
	if st == nil {
		return loadgen.SUTReport{}
	}
	s.members.Store(st)
	return MembersReport(*st)
}

// Members returns what the plugin's members did in the last performance
// pass (host.MemberReporter); nil when it reported none.
func (s *SUT) Members() *host.PoolStats { return s.members.Load() }

// PoolReport is the summary section and the detail entries of a pool's
// statistics.
func PoolReport(st host.PoolStats) loadgen.SUTReport {
	return memberReport(st, "Pool Members", fmt.Sprintf("pool : %s, %d members; latency from a sample's arrival in the pool to its completion", st.Pool, len(st.Members)), mllog.KeyPoolMember)
}

// MembersReport is the summary section and the detail entries of a
// plugin's own members (host.MemberReporter).
func MembersReport(st host.PoolStats) loadgen.SUTReport {
	head := fmt.Sprintf("plugin : %s, %d members", st.Pool, len(st.Members))
	if st.Latency != "" {
		head += "; latency " + st.Latency
	}
	return memberReport(st, "Plugin Members", head, mllog.KeyPluginMember)
}

func memberReport(st host.PoolStats, title, head, key string) loadgen.SUTReport {
	r := loadgen.SUTReport{Title: title, Lines: []string{head}}
	for _, m := range st.Members {
		l := m.Latency
		line := fmt.Sprintf("%s (%s, %s) : %d samples (%.2f%%), %d failed, p50 %v p90 %v p99 %v max %v",
			m.Name, m.Plugin, m.Transport, m.Completed, 100*m.Share, m.Failed, round(l.P50), round(l.P90), round(l.P99), round(l.Max))
		if m.FirstError != "" {
			line += "; first error: " + m.FirstError
		}
		r.Lines = append(r.Lines, line)
		r.Detail = append(r.Detail, loadgen.DetailEntry{Key: key, Value: mllog.PoolMemberEntry{
			Name: m.Name, Plugin: m.Plugin, Transport: string(m.Transport), Samples: m.Completed, Failed: m.Failed,
			Share: m.Share, Rate: m.Rate, FirstError: m.FirstError,
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
