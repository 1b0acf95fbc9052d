package submission

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// interactiveProblems checks a Server run's detail log with the keys
// over in benchmark name's Interactive directory of a closed datacenter
// tree: the checker's problems and mlperf-host's stricter ones.
func interactiveProblems(t *testing.T, name string, over map[string]any) (errs, strict []string) {
	t.Helper()
	b, err := v61.Lookup(name)
	require.NoError(t, err)
	log := perfLog(benchmarks.Server)
	log["effective_performance_sample_count"] = b.PerformanceSampleCount
	log["effective_min_duration_ms"] = v61.MinDuration.Milliseconds()
	if b.LLM {
		log["requested_use_token_latencies"] = raw("true")
		log["result_completed_tokens_per_second"] = 1234.5
	}
	for k, v := range over {
		log[k] = v
	}
	dir := filepath.Join(t.TempDir(), "run_1")
	detail(t, dir, log)
	d, err := readDetail(dir)
	require.NoError(t, err)
	p := perfProblems(d, v61, Layout{Division: "closed", Round: v61, Benchmark: b, Scenario: benchmarks.Interactive, ScenarioName: "Interactive"},
		map[string]any{"system_type": "datacenter"})
	return p.errors, p.strict
}

// TestInteractiveTokenLimits: an Interactive directory's run is held to
// the checker's Server TTFT/TPOT limits (llm_check reads the log's
// scenario) and, as mlperf-host's rule, to Interactive's.
func TestInteractiveTokenLimits(t *testing.T) {
	t.Parallel()
	const ms = 1e6
	tests := []struct {
		bench      string
		ttft, tpot float64 // Interactive's limits, ms
		server     float64 // a TTFT over Server's limit, ms
	}{
		{"llama3.1-8b", 500, 30, 2000},
		{"deepseek-r1", 1500, 15, 2000},
		{"gpt-oss-120b", 2000, 15, 3000},
		{"llama2-70b-99.9", 450, 40, 2000},
	}
	for _, tt := range tests {
		t.Run(tt.bench, func(t *testing.T) {
			t.Parallel()
			b, err := v61.Lookup(tt.bench)
			require.NoError(t, err)
			lim := b.TokenLatency[benchmarks.Interactive]
			assert.InDelta(t, tt.ttft*ms, float64(lim.TTFT.Nanoseconds()), 0)
			assert.InDelta(t, tt.tpot*ms, float64(lim.TPOT.Nanoseconds()), 0)
			tokens := func(ttft, tpot float64) map[string]any {
				return map[string]any{"result_first_token_99.00_percentile_latency_ns": int64(ttft), "result_time_per_output_token_99.00_percentile_ns": int64(tpot)}
			}
			errs, strict := interactiveProblems(t, tt.bench, tokens(tt.ttft*ms-1, tt.tpot*ms-1))
			assert.Empty(t, errs)
			assert.Empty(t, strict)

			// Over Interactive's TTFT, under Server's: the checker accepts it.
			errs, strict = interactiveProblems(t, tt.bench, tokens(tt.ttft*ms, tt.tpot*ms-1))
			assert.Empty(t, errs)
			require.Len(t, strict, 1)
			assert.Contains(t, strict[0], "not under Interactive's")
			errs, strict = interactiveProblems(t, tt.bench, tokens(tt.ttft*ms-1, tt.tpot*ms))
			assert.Empty(t, errs)
			assert.Len(t, strict, 1)

			errs, _ = interactiveProblems(t, tt.bench, tokens(tt.server*ms, tt.tpot*ms-1))
			require.Len(t, errs, 1)
			assert.Contains(t, errs[0], "(llm_check)")
		})
	}
}

// TestInteractiveLatencyBound: qwen3-vl's Interactive run is bounded on
// its end-to-end latency, 1.5 s (mlperf-host's rule: the checker reads a
// LoadGen log's Server bound, 12 s).
func TestInteractiveLatencyBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		latency int64
		errs    string
		strict  string
	}{
		{name: "within", latency: 1_500_000_000},
		{name: "over interactive's", latency: 1_600_000_000, strict: "over Interactive's bound 1500000000"},
		{name: "over server's", latency: 13_000_000_000, errs: "over the bound 12000000000 (latency_check)", strict: "over Interactive's bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs, strict := interactiveProblems(t, "qwen3-vl-235b-a22b", map[string]any{"effective_target_latency_ns": tt.latency, "result_completed_samples_per_sec": 2.5})
			check := func(got []string, want string) {
				if want == "" {
					assert.Empty(t, got)
					return
				}
				assert.Contains(t, strings.Join(got, "\n"), want)
			}
			check(errs, tt.errs)
			check(strict, tt.strict)
		})
	}
}

// TestOneOfServerOrInteractive: a closed datacenter LLM result submits
// Offline and one of Server or Interactive (check_scenarios), and a
// benchmark without Interactive may not submit one.
func TestOneOfServerOrInteractive(t *testing.T) {
	t.Parallel()
	const oneOf = "datacenter systems must submit one of Interactive or Server (check_scenarios)"
	tests := []struct {
		name, bench string
		scenarios   []string
		want        string // a problem the tree must have; "" for neither of the two below
	}{
		{name: "offline alone", bench: "llama3.1-8b", scenarios: []string{"Offline"}, want: oneOf},
		{name: "interactive", bench: "llama3.1-8b", scenarios: []string{"Offline", "Interactive"}},
		{name: "server", bench: "llama3.1-8b", scenarios: []string{"Offline", "Server"}},
		{name: "both", bench: "deepseek-r1", scenarios: []string{"Offline", "Server", "Interactive"}},
		// The checker lower-cases directory names.
		{name: "lower case", bench: "gpt-oss-120b", scenarios: []string{"Offline", "interactive"}},
		{name: "interactive not allowed", bench: "dlrm-v3", scenarios: []string{"Offline", "Server", "Interactive"},
			want: "Interactive: scenario not allowed for dlrm-v3 datacenter systems (check_scenarios)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			sys := systemDesc("closed")
			sys["system_type"] = "datacenter"
			require.NoError(t, WriteJSON(filepath.Join(root, "closed/acme/systems/box.json"), sys))
			for _, sc := range tt.scenarios {
				write(t, filepath.Join(root, "closed/acme/results/box", tt.bench, sc, "README.md"), "x\n")
			}
			var all []string
			for _, p := range Check(root, v61).Errors(true) {
				all = append(all, p.String())
			}
			text := strings.Join(all, "\n")
			if tt.want != "" {
				assert.Contains(t, text, tt.want)
				return
			}
			assert.NotContains(t, text, "(check_scenarios)")
		})
	}
}
