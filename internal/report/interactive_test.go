package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// runWith makes a run outside any tree whose detail log has the values
// (JSON numbers stay numbers), its rules resolved in round v6.1.
func runWith(t *testing.T, values map[string]any) *Run {
	t.Helper()
	var b strings.Builder
	for k, v := range values {
		j, err := json.Marshal(v)
		require.NoError(t, err)
		fmt.Fprintf(&b, ":::MLLOG {\"key\": %q, \"value\": %s, \"time_ms\": 1, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": false, \"is_warning\": false}}\n", k, j)
	}
	log, err := mllog.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	r := &Run{Name: "run1", Detail: log}
	r.resolve(benchmarks.MustRound("v6.1"))
	return r
}

// TestInteractiveFromSettings: a Server log outside a tree is an
// Interactive run when it was made under the benchmark's Interactive
// bounds, as LoadGen logs them.
func TestInteractiveFromSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"llama3.1-8b interactive", map[string]any{"qsl_name": "llama3.1-8b (prompts.json)", "effective_scenario": "Server",
			"requested_server_ttft_latency": 500000000, "requested_server_tpot_latency": 30000000, "requested_server_target_latency_ns": 0}, "Interactive"},
		{"llama3.1-8b server", map[string]any{"qsl_name": "llama3.1-8b (prompts.json)", "effective_scenario": "Server",
			"requested_server_ttft_latency": 2000000000, "requested_server_tpot_latency": 100000000, "requested_server_target_latency_ns": 0}, "Server"},
		// One bound of the two is not Interactive's: a Server run of the user's.
		{"llama3.1-8b mixed", map[string]any{"qsl_name": "llama3.1-8b (prompts.json)", "effective_scenario": "Server",
			"requested_server_ttft_latency": 500000000, "requested_server_tpot_latency": 100000000}, "Server"},
		{"qwen3-vl interactive", map[string]any{"qsl_name": "qwen3-vl-235b-a22b (catalogue)", "effective_scenario": "Server",
			"requested_server_target_latency_ns": 1500000000}, "Interactive"},
		{"qwen3-vl server", map[string]any{"qsl_name": "qwen3-vl-235b-a22b (catalogue)", "effective_scenario": "Server",
			"requested_server_target_latency_ns": 12000000000}, "Server"},
		{"no interactive", map[string]any{"qsl_name": "resnet (imagenet)", "effective_scenario": "Server",
			"requested_server_target_latency_ns": 15000000}, "Server"},
		{"offline", map[string]any{"qsl_name": "llama3.1-8b (prompts.json)", "effective_scenario": "Offline"}, "Offline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runWith(t, tt.values)
			assert.Equal(t, tt.want, r.Scenario())
		})
	}
}
