package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// TestInteractiveConf: an Interactive run reads the lines of the model
// MODEL-interactive in Server, the built-in table's and user.conf's; a
// Server run of the same benchmark reads neither.
func TestInteractiveConf(t *testing.T) {
	t.Parallel()
	user := write(t, "user.conf", "llama3_1-8b.Server.target_qps = 3\nllama3_1-8b-interactive.Server.target_qps = 7\n")
	load := func(t *testing.T, sc string) *Config {
		t.Helper()
		c, err := Load(Inputs{ReadConf: fakeConf, Flags: []FlagValue{
			{Key: KeyBenchmark, Value: "llama3.1-8b", Flag: "--benchmark"},
			{Key: KeyScenario, Value: sc, Flag: "--scenario"},
			{Key: KeyUserConf, Value: user, Flag: "--user-conf"},
		}})
		require.NoError(t, err)
		return c
	}
	tests := []struct {
		name, scenario, key, value, where string
	}{
		{"user's rate", "Interactive", "settings.target_qps", "7", user + ":2 (llama3_1-8b-interactive.Server.target_qps)"},
		{"ttft", "Interactive", "settings.ttft_latency", "500", "mlperf.conf v6.1 (llama3_1-8b-interactive.Server.ttft_latency)"},
		{"tpot", "Interactive", "settings.tpot_latency", "30", "mlperf.conf v6.1 (llama3_1-8b-interactive.Server.tpot_latency)"},
		{"target latency", "Interactive", "settings.target_latency", "0", "mlperf.conf v6.1 (llama3_1-8b-interactive.Server.target_latency)"},
		{"token latencies", "Interactive", "settings.use_token_latencies", "1", "mlperf.conf v6.1 (llama3_1-8b-interactive.*.use_token_latencies)"},
		{"permutation", "Interactive", "settings.sample_concatenate_permutation", "1", "mlperf.conf v6.1 (llama3_1-8b-interactive.*.sample_concatenate_permutation)"},
		{"server's rate", "Server", "settings.target_qps", "3", user + ":1 (llama3_1-8b.Server.target_qps)"},
		{"server's ttft", "Server", "settings.ttft_latency", "2000", "mlperf.conf v6.1 (llama3_1-8b.Server.ttft_latency)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := load(t, tt.scenario)
			v, ok := c.Lookup(tt.key)
			require.True(t, ok)
			assert.Equal(t, tt.value, v.Value)
			assert.Equal(t, tt.where, v.Source.Where)
		})
	}
	c := load(t, "Interactive")
	assert.Equal(t, benchmarks.Interactive, c.Scenario)
	assert.Equal(t, benchmarks.Server, c.LoadGenScenario())
	assert.Equal(t, "llama3_1-8b-interactive", c.ConfModel())
}

func TestInteractiveRefused(t *testing.T) {
	t.Parallel()
	_, err := Load(Inputs{Flags: []FlagValue{
		{Key: KeyBenchmark, Value: "resnet", Flag: "--benchmark"},
		{Key: KeyScenario, Value: "Interactive", Flag: "--scenario"},
	}})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "resnet has no Interactive scenario in round v6.1")
	assert.Contains(t, err.Error(), "Interactive only for llama3.1-8b, llama2-70b-99.9, deepseek-r1, gpt-oss-120b, qwen3-vl-235b-a22b")

	// qwen3-vl's Interactive bound comes from the round's checker, not a
	// line of mlperf.conf.
	c, err := Load(Inputs{Flags: []FlagValue{
		{Key: KeyBenchmark, Value: "qwen3-vl-235b-a22b", Flag: "--benchmark"},
		{Key: KeyScenario, Value: "Interactive", Flag: "--scenario"},
	}})
	require.NoError(t, err)
	v, _ := c.Lookup("settings.target_latency")
	assert.Equal(t, Source{LayerBuiltin, "round v6.1 (the checker's Interactive latency bound)"}, v.Source)
	assert.Equal(t, "1500", v.Value)
}
