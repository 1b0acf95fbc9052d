package report

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHumanUnits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, got, want string
	}{
		{"nanoseconds", duration(812), "812 ns"},
		{"microseconds", duration(15_949), "15.9 µs"},
		{"milliseconds", duration(7_491_997), "7.49 ms"},
		{"trailing zeros go", duration(2_000_000), "2 ms"},
		{"seconds", duration(1.2e9), "1.2 s"},
		// 59.96 s rounds to a minute, not to "60 s".
		{"just under a minute", duration(59.96e9), "1 min"},
		{"minutes", duration(75.9e9), "1 min 16 s"},
		{"hours", duration(2*3600e9 + 5*60e9), "2 h 5 min"},
		{"negative", duration(-1500), "−1.5 µs"},
		{"rate small", rate(57.96), "57.96"},
		{"rate hundreds", rate(310.826), "310.8"},
		{"rate round", rate(300), "300"},
		{"rate thousands", rate(5322.4), "5,322"},
		{"rate millions", rate(1234567.8), "1,234,568"},
		{"count", count(11000), "11,000"},
		{"ordinal", ordinal(0.999), "99.9th"},
		{"ratio up", ratioText(91.83), "×91.8"},
		{"ratio down", ratioText(0.0072817), "×0.00728"},
		{"estimates", humanEstimates("* Early stopping 90.0th percentile estimate: 9398652"), "* Early stopping 90.0th percentile estimate: 9.4 ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.got)
		})
	}
}

func TestHumanValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key, raw, want string
	}{
		{"result_99.00_percentile_latency_ns", "315995275", "316 ms"},
		// The LoadGen logs these in ns whatever the suffix says.
		{"early_stopping_latency_ms", "69040222", "69 ms"},
		{"effective_min_duration_ms", "600000", "10 min"},
		{"result_completed_samples_per_sec", "310.826", "310.8 samples/s"},
		{"effective_target_qps", "5000", "5,000 queries/s"},
		{"effective_target_latency_percentile", "0.9", "90th"},
		{"result_query_count", "24576", "24,576"},
		// A seed is an identifier, not a quantity.
		{"effective_schedule_rng_seed", "1616069548935116289", "1616069548935116289"},
		{"result_min_duration_met", "true", "yes"},
		{"result_validity", `"VALID"`, "VALID"},
		{"effective_accuracy_log_probability", "0.5", "0.5"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, humanValue(tt.key, json.RawMessage(tt.raw)))
		})
	}
}
