package calibrate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOffline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		m         Measurement
		margin    float64
		want      string
		wantProbe string
	}{
		{name: "twice the throughput", m: Measurement{Samples: 5000, Duration: time.Second}, margin: 2, want: "10000",
			wantProbe: "probe: 5000 samples/s over 1s"},
		{name: "four significant digits", m: Measurement{Samples: 6561, Duration: 1100 * time.Millisecond}, margin: 2, want: "11930",
			wantProbe: "probe: 5965 samples/s over 1.1s"},
		{name: "margin one keeps the rate", m: Measurement{Samples: 900, Duration: time.Second}, margin: 1, want: "900",
			wantProbe: "probe: 900 samples/s over 1s"},
		// A very slow system still gets a rate LoadGen accepts.
		{name: "at least one", m: Measurement{Samples: 1, Duration: 10 * time.Second}, margin: 2, want: "1",
			wantProbe: "probe: 1 samples/s over 10s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Offline(tc.m, Settings{Margin: tc.margin})
			require.NoError(t, err)
			assert.Equal(t, Choice{Scenario: "Offline", Key: KeyTargetQPS, Value: tc.want, Probe: tc.wantProbe}, c)
		})
	}
	_, err := Offline(Measurement{Duration: time.Second}, Settings{Margin: 2})
	require.ErrorContains(t, err, "no samples")
}

func TestLatency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, scenario string
		m              Measurement
		margin         float64
		want           string
	}{
		{name: "half the mean latency", scenario: "SingleStream", m: Measurement{Queries: 1000, QueryLatency: 800 * time.Microsecond}, margin: 2, want: "0.4"},
		{name: "three significant digits", scenario: "MultiStream", m: Measurement{Queries: 250, QueryLatency: 5142 * time.Microsecond}, margin: 2, want: "2.57"},
		{name: "margin one", scenario: "SingleStream", m: Measurement{Queries: 10, QueryLatency: 25 * time.Millisecond}, margin: 1, want: "25"},
		// Below a microsecond LoadGen would see 0, which it refuses.
		{name: "at least a microsecond", scenario: "SingleStream", m: Measurement{Queries: 10, QueryLatency: time.Microsecond}, margin: 4, want: "0.001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Latency(tc.scenario, tc.m, Settings{Margin: tc.margin})
			require.NoError(t, err)
			assert.Equal(t, tc.scenario, c.Scenario)
			assert.Equal(t, KeyTargetLatency, c.Key)
			assert.Equal(t, tc.want, c.Value)
			assert.Contains(t, c.Probe, "mean query latency")
		})
	}
	_, err := Latency("SingleStream", Measurement{Queries: 3}, Settings{Margin: 2})
	require.ErrorContains(t, err, "no latency")
}

// TestScheduleBound checks that a chosen value never asks LoadGen for a
// schedule larger than MaxSamples over min_duration.
func TestScheduleBound(t *testing.T) {
	t.Parallel()
	s := Settings{Margin: 3, MinDuration: 10 * time.Second, SamplesPerQuery: 1, MaxSamples: 1_100_000}
	// 1e6 samples/s × 3 would be 33 M samples; 1.1 M over 11 s is 100 000/s.
	c, err := Offline(Measurement{Samples: 1_000_000, Duration: time.Second}, s)
	require.NoError(t, err)
	assert.Equal(t, "100000", c.Value)
	assert.Contains(t, c.Probe, "bounded so that the schedule of min_duration 10s holds at most 1100000 samples")
	// Below the bound, as chosen.
	c, err = Offline(Measurement{Samples: 10_000, Duration: time.Second}, s)
	require.NoError(t, err)
	assert.Equal(t, "30000", c.Value)
	assert.NotContains(t, c.Probe, "bounded")

	// 1 µs / 3 would generate 60 M queries over 20 s; 1.1 M of 4
	// samples allow 20 s × 4 / 1.1 M = 72.7 µs.
	s.SamplesPerQuery = 4
	c, err = Latency("MultiStream", Measurement{Queries: 100, QueryLatency: time.Microsecond}, s)
	require.NoError(t, err)
	assert.Equal(t, "0.0727", c.Value)
	assert.Contains(t, c.Probe, "bounded")
	c, err = Latency("MultiStream", Measurement{Queries: 100, QueryLatency: 3 * time.Millisecond}, s)
	require.NoError(t, err)
	assert.Equal(t, "1", c.Value)
	assert.NotContains(t, c.Probe, "bounded")
}

func TestServerChoice(t *testing.T) {
	t.Parallel()
	c := Server(Peak{QPS: 1000, Capacity: 2000, Trials: make([]Measurement, 3)}, 2)
	assert.Equal(t, "Server target_qps = 500 (probe: peak 1000 queries/s under the latency bounds, 3 probes from a capacity of 2000 samples/s)", c.String())
	c = Server(Peak{QPS: 1000, Capacity: 2000, Trials: make([]Measurement, 3), Bounded: "TTFT p99 (early stopping) 2.3ms > 2ms bound at 1500 queries/s",
		Note: "TTFT and TPOT at 1000 queries/s judged at the plain p99: 500 queries, early stopping needs 662"}, 2)
	assert.Equal(t, "Server target_qps = 500 (probe: peak 1000 queries/s under the latency bounds, 3 probes from a capacity of 2000 samples/s; "+
		"bounded by TTFT p99 (early stopping) 2.3ms > 2ms bound at 1500 queries/s; "+
		"TTFT and TPOT at 1000 queries/s judged at the plain p99: 500 queries, early stopping needs 662)", c.String())
}
