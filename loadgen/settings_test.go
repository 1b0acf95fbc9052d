package loadgen

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultTestSettings(t *testing.T) {
	t.Parallel()
	s := DefaultTestSettings()
	require.NoError(t, s.Validate())
	// The official defaults, from mlperf::TestSettings.
	assert.Equal(t, SingleStream, s.Scenario)
	assert.Equal(t, PerformanceOnly, s.Mode)
	assert.Equal(t, time.Millisecond, s.SingleStreamExpectedLatency)
	assert.Equal(t, 8*time.Millisecond, s.MultiStreamExpectedLatency)
	assert.Equal(t, uint64(8), s.MultiStreamSamplesPerQuery)
	assert.Equal(t, 100*time.Millisecond, s.ServerTargetLatency)
	assert.Equal(t, 10*time.Second, s.MinDuration)
	assert.Equal(t, uint64(100), s.MinQueryCount)
	assert.Equal(t, 1, s.ServerFindPeakQPSDecimalsOfPrecision)
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		modify func(*TestSettings)
		want   string
	}{
		{name: "percentile of one", modify: func(s *TestSettings) { s.SingleStreamTargetLatencyPercentile = 1 }, want: "single_stream_target_latency_percentile"},
		{name: "zero qps", modify: func(s *TestSettings) { s.Scenario = Server; s.ServerTargetQPS = 0 }, want: "server_target_qps"},
		{name: "nan qps", modify: func(s *TestSettings) { s.Scenario = Offline; s.OfflineExpectedQPS = math.NaN() }, want: "offline_expected_qps"},
		{name: "zero samples per query", modify: func(s *TestSettings) { s.Scenario = MultiStream; s.MultiStreamSamplesPerQuery = 0 }, want: "samples_per_query"},
		{name: "unknown scenario", modify: func(s *TestSettings) { s.Scenario = 9 }, want: "unknown scenario"},
		{name: "unknown mode", modify: func(s *TestSettings) { s.Mode = -1 }, want: "unknown mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := DefaultTestSettings()
			tt.modify(&s)
			err := s.Validate()
			require.ErrorIs(t, err, ErrInvalidSettings)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseScenarioAndMode(t *testing.T) {
	t.Parallel()
	for sc := SingleStream; sc <= Offline; sc++ {
		got, err := ParseScenario(sc.String())
		require.NoError(t, err)
		assert.Equal(t, sc, got)
	}
	for m := SubmissionRun; m <= FindPeakPerformance; m++ {
		got, err := ParseMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	_, err := ParseScenario("Single Stream")
	require.Error(t, err)
	_, err = ParseMode("Performance")
	require.Error(t, err)
	assert.Equal(t, "Scenario(7)", Scenario(7).String())
}
