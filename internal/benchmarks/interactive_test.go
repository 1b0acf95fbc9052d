package benchmarks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// settingsMap is a scenario's settings by key: value and where from.
func settingsMap(ss []Setting) map[string][2]string {
	out := map[string][2]string{}
	for _, s := range ss {
		from := s.Pattern
		if s.From != "" {
			from = s.From
		}
		out[s.Key] = [2]string{s.Value, from}
	}
	return out
}

func TestInteractiveScenario(t *testing.T) {
	t.Parallel()
	assert.Equal(t, Server, Interactive.LoadGen())
	assert.Equal(t, Offline, Offline.LoadGen())
	assert.Equal(t, []Scenario{SingleStream, MultiStream, Server, Offline, Interactive}, RunScenarios())

	r := MustRound("v6.1")
	llama, err := r.Lookup("llama3.1-8b")
	require.NoError(t, err)
	assert.Equal(t, "llama3_1-8b-interactive", llama.ConfName(Interactive))
	assert.Equal(t, "llama3_1-8b", llama.ConfName(Server))
	require.True(t, llama.HasInteractive())
	got := settingsMap(llama.Settings[Interactive])
	// The official mlperf.conf's lines for the -interactive model win over
	// the lines for every model (*.Server.target_latency = 10).
	for key, want := range map[string][2]string{
		"target_latency":                    {"0", "llama3_1-8b-interactive.Server.target_latency"},
		"ttft_latency":                      {"500", "llama3_1-8b-interactive.Server.ttft_latency"},
		"tpot_latency":                      {"30", "llama3_1-8b-interactive.Server.tpot_latency"},
		"use_token_latencies":               {"1", "llama3_1-8b-interactive.*.use_token_latencies"},
		"sample_concatenate_permutation":    {"1", "llama3_1-8b-interactive.*.sample_concatenate_permutation"},
		"performance_sample_count_override": {"13368", "llama3_1-8b-interactive.*.performance_sample_count_override"},
		"min_duration":                      {"600000", "*.Server.min_duration"},
	} {
		assert.Equal(t, want, got[key], key)
	}
	assert.Equal(t, "2000", settingsMap(llama.Settings[Server])["ttft_latency"][0], "Server keeps its own bound")

	// qwen3-vl has no -interactive lines: its Server settings under the
	// checker's Interactive bound (1.5 s) and sample count (8000).
	qwen, err := r.Lookup("qwen3-vl-235b-a22b")
	require.NoError(t, err)
	got = settingsMap(qwen.Settings[Interactive])
	assert.Equal(t, [2]string{"1500", "the checker's Interactive latency bound"}, got["target_latency"])
	assert.Equal(t, [2]string{"8000", "the checker's Interactive sample count"}, got["performance_sample_count_override"])
	assert.Equal(t, [2]string{"1", "qwen3-vl-235b-a22b.*.sample_concatenate_permutation"}, got["sample_concatenate_permutation"])

	resnet, err := r.Lookup("resnet")
	require.NoError(t, err)
	assert.False(t, resnet.HasInteractive())
	assert.NotContains(t, resnet.Settings, Interactive)
}

// TestInteractiveBenchmarksPerRound: the benchmarks whose Interactive
// scenario a category submits, per round (the checker's optional
// scenarios).
func TestInteractiveBenchmarksPerRound(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"v5.1": {"llama3.1-8b", "llama2-70b-99", "llama2-70b-99.9", "llama3.1-405b"},
		"v6.0": {"llama3.1-8b", "llama2-70b-99", "llama2-70b-99.9", "llama3.1-405b", "deepseek-r1", "gpt-oss-120b", "qwen3-vl-235b-a22b"},
		"v6.1": {"llama3.1-8b", "llama2-70b-99.9", "deepseek-r1", "gpt-oss-120b", "qwen3-vl-235b-a22b"},
	}
	for _, name := range RoundNames() {
		var got []string
		for _, b := range MustRound(name).All() {
			if b.HasInteractive() {
				got = append(got, b.SubmissionName)
				assert.NotEmpty(t, b.Settings[Interactive], "%s %s", name, b.SubmissionName)
			}
		}
		assert.ElementsMatch(t, want[name], got, name)
	}
}
