package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
)

// sutLabel says what the run measures: a plugin, or a pool's members.
func sutLabel(c *config.Config) string {
	if len(c.Pool) == 0 {
		return "plugin " + c.Plugin
	}
	names := make([]string, len(c.Pool))
	for i, m := range c.Pool {
		names[i] = m.Name
	}
	return fmt.Sprintf("a pool of %d (%s)", len(c.Pool), strings.Join(names, ", "))
}

// poolRows adds one row per pool member to the results: its share of
// the samples and its latencies.
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
		row("  member "+m.Name, "%s", line)
	}
}

func roundDur(d time.Duration) time.Duration {
	if d >= time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d
}
