package report

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// poolRow is one pool member's line on the page: what it ran and its
// share and latencies in the timed pass, from its sut_pool_member entry.
type poolRow struct {
	Name, Plugin, Transport, Samples, Share, Rate string
	P50, P90, P99, Max                            string
	Failed                                        int64
	FirstError                                    string
}

// poolRows returns the members of a pool run, in pool order, each as its
// last sut_pool_member entry says; nil for a run of one plugin or an
// entry that does not parse (a log of another harness).
func (r *Run) poolRows() []poolRow { return r.memberRows(mllog.KeyPoolMember) }

// pluginMemberRows returns the members a plugin reported of its own (a
// serving engine's endpoints), from their sut_plugin_member entries.
func (r *Run) pluginMemberRows() []poolRow { return r.memberRows(mllog.KeyPluginMember) }

// memberRows reads the entries of key, the last of each member.
func (r *Run) memberRows(key string) []poolRow {
	if r.Detail == nil {
		return nil
	}
	var rows []poolRow
	for _, rec := range r.Detail.Records {
		if rec.Key != key {
			continue
		}
		var m mllog.PoolMemberEntry
		if json.Unmarshal(rec.Value, &m) != nil || m.Name == "" {
			continue
		}
		row := poolRow{Name: m.Name, Plugin: m.Plugin, Transport: m.Transport, Samples: count(m.Samples),
			Share: fmt.Sprintf("%.1f%%", 100*m.Share), Rate: rate(m.Rate) + "/s", Failed: m.Failed,
			P50: latency(m.Latency, "p50"), P90: latency(m.Latency, "p90"), P99: latency(m.Latency, "p99"), Max: latency(m.Latency, "max"),
			FirstError: m.FirstError}
		if i := slices.IndexFunc(rows, func(x poolRow) bool { return x.Name == m.Name }); i >= 0 {
			rows[i] = row
			continue
		}
		rows = append(rows, row)
	}
	return rows
}

// latency formats one of a member's latencies; "n/a" when it has none.
func latency(l map[string]int64, key string) string {
	v, ok := l[key]
	if !ok {
		return "n/a"
	}
	return duration(float64(v))
}
