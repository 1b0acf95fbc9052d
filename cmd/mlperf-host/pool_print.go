package main

import (
	"fmt"
	"time"

	"github.com/mlperf-host/mlperf-host/host"
)

// poolRows adds one row per pool member (or member of the plugin's own,
// such as an endpoint) to the results: its share of the samples, its
// latencies, its first failure.
func poolRows(row func(k, format string, args ...any), st *host.PoolStats) {
	if st == nil {
		return
	}
	for _, m := range st.Members {
		l := m.Latency
		line := fmt.Sprintf("%s %s: %d samples (%.1f%%)", m.Plugin, m.Transport, m.Completed, 100*m.Share)
		if m.Failed > 0 {
			line += fmt.Sprintf(", %d failed", m.Failed)
		}
		if l.Count > 0 {
			line += fmt.Sprintf("  p50 %v  p99 %v  max %v", roundDur(l.P50), roundDur(l.P99), roundDur(l.Max))
		}
		if m.FirstError != "" {
			line += "; first error: " + m.FirstError
		}
		row("  member "+m.Name, "%s", line)
	}
}

func roundDur(d time.Duration) time.Duration {
	if d >= time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d
}
