package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettingRanges: numeric settings outside their documented range are
// refused with the range, before anything runs.
func TestSettingRanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		setting, value string
		want           string // "" when accepted
	}{
		{setting: "target_qps", value: "1e308", want: "want a number in [0.001, 1e+09] samples/s"},
		{setting: "target_qps", value: "1e-300", want: "want a number in [0.001, 1e+09] samples/s"},
		{setting: "target_qps", value: "0", want: "want a number in"},
		{setting: "target_qps", value: "-1", want: "want a number in"},
		{setting: "target_qps", value: "250"},
		{setting: "target_latency", value: "0"}, // the official LLM Server latency
		{setting: "target_latency_percentile", value: "99.9"},
		{setting: "target_latency_percentile", value: "100", want: "want a number in [0, 100) %"},
		{setting: "min_duration", value: "600000"},
		{setting: "min_duration", value: "99999999999999", want: "want a number in [0, 6.048e+08] ms"},
		{setting: "min_duration", value: "18446744073709551615", want: "want a number in [0, 6.048e+08] ms"},
		{setting: "samples_per_query", value: "0", want: "want a number in [1, 1.048576e+06]"},
		{setting: "accuracy_log_probability", value: "101", want: "[0, 100] %"},
		{setting: "max_query_count", value: "18446744073709551615"}, // a limit: any value
		{setting: "qsl_rng_seed", value: "18446744073709551615"},
	}
	for _, tt := range tests {
		t.Run(tt.setting+"="+tt.value, func(t *testing.T) {
			t.Parallel()
			_, err := Load(Inputs{Flags: []FlagValue{{Key: PrefixSettings + tt.setting, Value: tt.value, Flag: "--set"}}})
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrConfig)
			assert.ErrorContains(t, err, "settings."+tt.setting+` = "`+tt.value+`" (flag --set)`)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	keys := []string{"target_qps", "target_latency", "min_duration", "max_duration", "Offline", "Server"}
	assert.Equal(t, []string{"target_qps"}, Suggest("target_qsp", keys))
	assert.Equal(t, []string{"min_duration", "max_duration"}, Suggest("min_duraton", keys))
	assert.Equal(t, []string{"Offline"}, Suggest("offline", keys))
	assert.Empty(t, Suggest("threads", keys))
}
