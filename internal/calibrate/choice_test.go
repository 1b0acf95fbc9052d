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
			c, err := Offline(tc.m, tc.margin)
			require.NoError(t, err)
			assert.Equal(t, Choice{Scenario: "Offline", Key: KeyTargetQPS, Value: tc.want, Probe: tc.wantProbe}, c)
		})
	}
	_, err := Offline(Measurement{Duration: time.Second}, 2)
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
			c, err := Latency(tc.scenario, tc.m, tc.margin)
			require.NoError(t, err)
			assert.Equal(t, tc.scenario, c.Scenario)
			assert.Equal(t, KeyTargetLatency, c.Key)
			assert.Equal(t, tc.want, c.Value)
			assert.Contains(t, c.Probe, "mean query latency")
		})
	}
	_, err := Latency("SingleStream", Measurement{Queries: 3}, 2)
	require.ErrorContains(t, err, "no latency")
}

func TestServerChoice(t *testing.T) {
	t.Parallel()
	c := Server(Peak{QPS: 1000, Capacity: 2000, Trials: make([]Measurement, 3)}, 2)
	assert.Equal(t, "Server target_qps = 500 (probe: peak 1000 queries/s under the latency bound, 3 probes from a capacity of 2000 samples/s)", c.String())
}
