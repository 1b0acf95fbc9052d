package loadgen

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScheduleBounds: settings whose schedule would not fit in memory or
// time are refused by Validate, before anything is allocated; real-sized
// runs pass.
func TestScheduleBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(s *TestSettings)
		want string // "" when valid
	}{
		{name: "defaults"},
		{name: "offline at a million samples a second for ten minutes", edit: func(s *TestSettings) {
			s.Scenario, s.OfflineExpectedQPS, s.MinDuration = Offline, 1e6, 10*time.Minute
		}},
		{name: "offline qps 1e308", edit: func(s *TestSettings) { s.Scenario, s.OfflineExpectedQPS = Offline, 1e308 },
			want: "a schedule of 1.845e+19 samples"},
		{name: "server qps 1e-300", edit: func(s *TestSettings) { s.Scenario, s.ServerTargetQPS = Server, 1e-300 },
			want: "spanning 2.778e+298 hours"},
		{name: "server qps 1e12", edit: func(s *TestSettings) { s.Scenario, s.ServerTargetQPS = Server, 1e12 },
			want: "a schedule of 1e+13 samples"},
		{name: "min_duration 2^64-1 ms saturates", edit: func(s *TestSettings) { s.MinDuration = math.MaxInt64 },
			want: "at most 1073741824 samples"},
		{name: "single stream at a nanosecond", edit: func(s *TestSettings) { s.SingleStreamExpectedLatency = time.Nanosecond },
			want: "a schedule of 2e+10 samples"},
		{name: "min_query_count 2^40 multistream", edit: func(s *TestSettings) { s.Scenario, s.MinQueryCount = MultiStream, 1<<40 },
			want: "samples per query 8"},
		{name: "accuracy mode is the data set's size", edit: func(s *TestSettings) {
			s.Mode, s.Scenario, s.OfflineExpectedQPS = AccuracyOnly, Offline, 1e308
		}},
		{name: "issue unique is one pass", edit: func(s *TestSettings) {
			s.PerformanceIssueUnique, s.Scenario, s.ServerTargetQPS = true, Server, 1e12
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := DefaultTestSettings()
			if tt.edit != nil {
				tt.edit(&s)
			}
			err := s.Validate()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidSettings)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
