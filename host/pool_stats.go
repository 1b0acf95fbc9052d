package host

import (
	"math"
	"slices"
	"time"
)

// PoolStats is what each member of a pool did since samples were last
// loaded (for a performance run: its timed pass).
type PoolStats struct {
	// Pool is the pool's name (a plugin's, for [MemberReporter]'s).
	Pool    string
	Members []PoolMemberStats
	// Latency says what the members' latencies measure; empty for a
	// pool's: from a sample's arrival in the pool to its completion.
	Latency string
}

// PoolMemberStats is one member's share of a pool's work.
type PoolMemberStats struct {
	// Name is the member's name; Plugin and Transport its plugin's.
	Name      string
	Plugin    string
	Transport Transport
	// Completed and Failed count the member's samples since samples were
	// last loaded; Total counts its successful samples since the pool
	// opened (every loadable set of an accuracy run).
	Completed, Failed, Total int64
	// Share is Completed over every member's Completed; 0 when none.
	Share float64
	// Rate is the member's measured samples per second while it had
	// samples in flight (since the pool opened); 0 before it completed
	// enough to tell.
	Rate float64
	// Latency is the distribution of the member's samples' latencies, from
	// their arrival in the pool to their completion; exact percentiles.
	Latency LatencyStats
	// FirstError is a plugin's member's first failure (MemberReporter);
	// empty when none.
	FirstError string
}

// LatencyStats summarizes latencies with exact (nearest-rank)
// percentiles.
type LatencyStats struct {
	Count                         int
	Min, Mean, P50, P90, P99, Max time.Duration
}

// latencyStats sorts ns in place and summarizes them.
func latencyStats(ns []int64) LatencyStats {
	if len(ns) == 0 {
		return LatencyStats{}
	}
	slices.Sort(ns)
	var sum float64
	for _, v := range ns {
		sum += float64(v)
	}
	at := func(q float64) time.Duration {
		// Nearest rank: the smallest value with at least q of the values
		// at or below it.
		k := int(math.Ceil(q*float64(len(ns)))) - 1
		return time.Duration(ns[min(max(k, 0), len(ns)-1)])
	}
	return LatencyStats{
		Count: len(ns), Min: time.Duration(ns[0]), Max: time.Duration(ns[len(ns)-1]),
		Mean: time.Duration(sum / float64(len(ns))), P50: at(0.5), P90: at(0.9), P99: at(0.99),
	}
}

// Stats returns each member's share and latencies since samples were last
// loaded. Safe to call during a run; it copies the latencies it sorts.
func (p *Pool) Stats() PoolStats {
	st := PoolStats{Pool: p.name, Members: make([]PoolMemberStats, len(p.members))}
	lats := make([][]int64, len(p.members))
	var all int64
	p.mu.Lock()
	for i, m := range p.members {
		st.Members[i] = PoolMemberStats{Name: m.name, Completed: m.completed, Failed: m.failed, Total: m.total,
			Rate: m.rate(0) * float64(time.Second)}
		lats[i] = slices.Clone(m.lat)
		all += m.completed
	}
	p.mu.Unlock()
	for i, m := range p.members {
		ms := &st.Members[i]
		info := m.b.Info()
		ms.Plugin, ms.Transport = info.Name, info.Transport
		if all > 0 {
			ms.Share = float64(ms.Completed) / float64(all)
		}
		ms.Latency = latencyStats(lats[i])
	}
	return st
}
