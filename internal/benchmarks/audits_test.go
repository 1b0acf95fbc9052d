package benchmarks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuditValues: TEST07's and TEST09's thresholds are the official
// audit.config values of each round (v6.0's e2e-rag directory is not a
// v6.0 model; v6.1's gpt-oss-120b issues each sample once).
func TestAuditValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, round, bench string
		test               Test
		key                string
		want               float64
		err                string
	}{
		{name: "TEST07 threshold", round: "v6.1", bench: "gpt-oss-120b", test: TEST07, key: KeyTEST07Threshold, want: 60.698},
		{name: "TEST09 min", round: "v6.1", bench: "gpt-oss-120b", test: TEST09, key: KeyTEST09MinTokens, want: 1150.38},
		{name: "TEST09 max", round: "v6.1", bench: "gpt-oss-120b", test: TEST09, key: KeyTEST09MaxTokens, want: 1406.02},
		{name: "e2e-rag-qna by its submission name", round: "v6.1", bench: "e2e-rag-qna", test: TEST09, key: KeyTEST09MinTokens, want: 246.43},
		{name: "v6.0 TEST07", round: "v6.0", bench: "gpt-oss-120b", test: TEST07, key: KeyTEST07Threshold, want: 60.698},
		{name: "no such line", round: "v6.1", bench: "gpt-oss-120b", test: TEST07, key: KeyTEST09MinTokens, err: "has no *.*.test09_min_output_tokens line"},
		{name: "no audit.config", round: "v6.1", bench: "llama3.1-8b", test: TEST07, key: KeyTEST07Threshold, err: "publishes no TEST07 audit.config for llama3.1-8b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := MustRound(tt.round).Lookup(tt.bench)
			require.NoError(t, err)
			v, err := b.AuditValue(tt.test, tt.key)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tt.want, v, 0)
		})
	}
	b, err := MustRound("v6.1").Lookup("gpt-oss-120b")
	require.NoError(t, err)
	assert.Equal(t, "1", setting(t, b.AuditSettings[TEST07][Offline], "performance_issue_unique").Value)
	assert.Equal(t, "990", setting(t, b.AuditSettings[TEST07][Server], "min_query_count").Value)
}

// TestSubmitScenarios: a datacenter LLM submits Offline and both of the
// scenarios the rules ask one of; an edge benchmark its required ones.
func TestSubmitScenarios(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, bench string
		cat         Category
		want        []Scenario
		oneOf       bool
	}{
		{name: "datacenter llama3.1-8b", bench: "llama3.1-8b", cat: Datacenter, want: []Scenario{Offline, Server, Interactive}, oneOf: true},
		{name: "datacenter,edge gpt-oss-120b", bench: "gpt-oss-120b", cat: DatacenterEdge, want: []Scenario{Offline, Server, Interactive}, oneOf: true},
		{name: "edge llama3.1-8b-edge", bench: "llama3.1-8b-edge", cat: Edge, want: []Scenario{SingleStream, Offline}},
		{name: "edge resnet", bench: "resnet", cat: Edge, want: []Scenario{SingleStream, MultiStream, Offline}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := MustRound("v6.1").Lookup(tt.bench)
			require.NoError(t, err)
			got, ok := b.SubmitScenarios(tt.cat)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.oneOf, b.OneOf(tt.cat) != nil)
		})
	}
	b, err := MustRound("v6.1").Lookup("resnet")
	require.NoError(t, err)
	_, ok := b.SubmitScenarios(Datacenter)
	assert.False(t, ok)
}

// TestEOSTokenIDs: the ids of each LLM's generation config, the edge and
// accuracy-level variants included; none for a benchmark that is no LLM.
func TestEOSTokenIDs(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][]int64{
		"llama3.1-8b": {128001, 128008, 128009}, "llama3.1-8b-edge": {128001, 128008, 128009},
		"llama2-70b-99.9": {2}, "deepseek-r1": {1}, "gpt-oss-120b": {200002, 199999, 200012}, "resnet": nil,
	} {
		b, err := MustRound("v6.1").Lookup(name)
		require.NoError(t, err, name)
		assert.Equal(t, want, b.EOSTokenIDs, name)
	}
	b, err := MustRound("v6.0").Lookup("mixtral-8x7b")
	require.NoError(t, err)
	assert.Equal(t, []int64{2}, b.EOSTokenIDs)
}
