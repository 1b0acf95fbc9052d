package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
	"github.com/mlperf-host/mlperf-host/internal/runner"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// tokenResult is the run's result where the round's checker reports
// tokens per second (LLMs, whisper): read from the detail log the run
// wrote, as the checker reads it. false for any other result, or when the
// log lacks it.
func tokenResult(c *config.Config, o *runner.Outcome) (benchmarks.ResultMetric, bool) {
	f, err := os.Open(filepath.Join(o.OutDir, "mlperf_log_detail.txt"))
	if err != nil {
		return benchmarks.ResultMetric{}, false
	}
	defer f.Close()
	log, err := mllog.Parse(f)
	if err != nil {
		return benchmarks.ResultMetric{}, false
	}
	num := func(key string) (float64, bool) {
		if !log.Has(key) {
			return 0, false
		}
		v, err := log.Float(key)
		return v, err == nil
	}
	m, err := c.Round.ResultOf(c.Benchmark, c.LoadGenScenario(), c.Scenario, num)
	return m, err == nil && m.Unit == "tokens/s"
}

// tokenLatencies describes the run's TTFT and TPOT 99th percentiles,
// each against its scenario's limit where the benchmark has one
// (Interactive's for an Interactive run); "" without token latencies.
func tokenLatencies(c *config.Config, p *loadgen.PerformanceResult) string {
	if p.FirstToken == nil || p.FirstToken.Count == 0 || p.TimePerOutputToken == nil {
		return ""
	}
	lim, ok := c.Benchmark.TokenLatency[c.Scenario]
	part := func(name string, got, limit time.Duration) string {
		s := fmt.Sprintf("%s p99 %v", name, got)
		switch {
		case !ok:
		case got < limit:
			s += fmt.Sprintf(" (limit %v)", limit)
		default:
			s += fmt.Sprintf(" (OVER the limit %v)", limit)
		}
		return s
	}
	return strings.Join([]string{part("TTFT", p.FirstToken.At(0.99), lim.TTFT),
		part("TPOT", p.TimePerOutputToken.At(0.99), lim.TPOT)}, "  ")
}
