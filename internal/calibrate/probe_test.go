package calibrate

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeProber is a system of a fixed capacity (samples per second) and
// service time, whose Server latency grows with the rate as a queue's
// does: service / (1 - rate/capacity), unbounded at capacity.
type fakeProber struct {
	capacity float64
	service  time.Duration
	// bound is the Server latency bound; warm is how many Count probes
	// are slow (twice the service time) before the system is warm.
	bound time.Duration
	warm  int
	err   error

	counts []uint64
	rates  []float64
}

func (f *fakeProber) Count(_ context.Context, n uint64) (Measurement, error) {
	f.counts = append(f.counts, n)
	if f.err != nil {
		return Measurement{}, f.err
	}
	per := time.Duration(float64(time.Second) / f.capacity)
	lat := f.service
	if len(f.counts) <= f.warm {
		per, lat = 2*per, 2*lat
	}
	return Measurement{Samples: n, Queries: n, Duration: time.Duration(n) * per, QueryLatency: lat}, nil
}

func (f *fakeProber) Rate(_ context.Context, qps float64, d time.Duration) (Measurement, error) {
	f.rates = append(f.rates, qps)
	m := Measurement{TargetQPS: qps, Samples: uint64(qps * d.Seconds()), Duration: d, QueryLatency: f.service,
		LatencyBound: f.bound, LatencyPercentile: 0.99}
	if qps >= f.capacity {
		m.PercentileLatency = time.Hour
	} else {
		m.PercentileLatency = time.Duration(float64(f.service) / (1 - qps/f.capacity))
	}
	m.LatencyMet = m.PercentileLatency <= f.bound
	return m, nil
}

func TestNextCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		n          uint64
		took, d    time.Duration
		wantResult uint64
	}{
		{name: "sized to last d, 20% over", n: 100, took: 100 * time.Millisecond, d: time.Second, wantResult: 1200},
		{name: "at least twice", n: 100, took: 900 * time.Millisecond, d: time.Second, wantResult: 200},
		{name: "at most a hundred times", n: 8, took: time.Microsecond, d: time.Second, wantResult: 800},
		{name: "an instant probe grows a hundred times", n: 8, took: 0, d: time.Second, wantResult: 800},
		{name: "capped", n: MaxCount / 4, took: time.Millisecond, d: time.Second, wantResult: MaxCount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.wantResult, NextCount(tc.n, tc.took, tc.d))
		})
	}
}

func TestMeasure(t *testing.T) {
	t.Parallel()
	// 8 samples at 1000/s take 8 ms: the next probe would last a second
	// but grows at most a hundred times (800 samples, 0.8 s): over half
	// the probe time, the last.
	f := &fakeProber{capacity: 1000, service: time.Millisecond}
	m, err := Measure(t.Context(), f, time.Second)
	require.NoError(t, err)
	assert.Equal(t, []uint64{8, 800}, f.counts)
	assert.Equal(t, uint64(800), m.Samples)
	assert.InDelta(t, 1000, m.Throughput(), 0.01)

	// A slow system answers the first probe only.
	slow := &fakeProber{capacity: 4, service: 250 * time.Millisecond}
	_, err = Measure(t.Context(), slow, time.Second)
	require.NoError(t, err)
	assert.Equal(t, []uint64{8}, slow.counts)

	failing := &fakeProber{capacity: 1, err: errors.New("plugin died")}
	_, err = Measure(t.Context(), failing, time.Second)
	require.ErrorContains(t, err, "plugin died")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = Measure(ctx, &fakeProber{capacity: 1000}, time.Second)
	require.ErrorIs(t, err, context.Canceled)
}

func TestSearchPeak(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		capacity float64
		service  time.Duration
		bound    time.Duration
		steps    int
		want     float64
		wantErr  string
	}{
		// Latency 1 ms / (1 - q/1000) <= 4 ms up to q = 750; bisection
		// of [0, 1000) in 4 steps: 500 ok, 750 ok, 875 no, 812.5 no.
		{name: "bisection below capacity", capacity: 1000, service: time.Millisecond, bound: 4 * time.Millisecond, steps: 4, want: 750},
		{name: "more steps, closer", capacity: 1000, service: time.Millisecond, bound: 3 * time.Millisecond, steps: 8, want: 664.0625},
		// A bound the service time alone misses.
		{name: "nothing meets the bound", capacity: 1000, service: 10 * time.Millisecond, bound: 5 * time.Millisecond, steps: 3,
			wantErr: "no Server rate down to 125 queries/s met the latency bounds: latency p99 11.43ms > 5ms bound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeProber{capacity: tc.capacity, service: tc.service, bound: tc.bound}
			// The search starts at the capacity an Offline probe measured,
			// which the queue's latency never meets.
			p, err := SearchPeak(t.Context(), f, tc.capacity, tc.steps, time.Second)
			require.Len(t, p.Trials, tc.steps+1)
			assert.InDelta(t, tc.capacity, f.rates[0], 0)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tc.want, p.QPS, 1e-9)
			assert.InDelta(t, tc.capacity, p.Capacity, 0)
			assert.Contains(t, p.Bounded, "latency p99 ")
			assert.NotContains(t, p.Bounded, "TTFT", "no token bound without token latencies")
		})
	}

	// A system that meets the bound at its capacity needs one probe.
	f := &fakeProber{capacity: 1000, service: time.Millisecond, bound: 2 * time.Hour}
	p, err := SearchPeak(t.Context(), f, 1000, 6, time.Second)
	require.NoError(t, err)
	assert.InDelta(t, 1000, p.QPS, 0)
	assert.Len(t, p.Trials, 1)
	assert.Empty(t, p.Bounded, "nothing bounded the capacity")

	_, err = SearchPeak(t.Context(), f, 0, 6, time.Second)
	require.ErrorContains(t, err, "capacity above 0")
}

func TestChoose(t *testing.T) {
	t.Parallel()
	s := Settings{ProbeTime: time.Second, Margin: 2, ServerSteps: 4}
	for _, tc := range []struct {
		name, scenario string
		want           string
		wantErr        string
	}{
		// The warm-up probe (twice as slow) does not count: 1000/s.
		{name: "Offline", scenario: "Offline", want: "Offline target_qps = 2000"},
		{name: "SingleStream", scenario: "SingleStream", want: "SingleStream target_latency = 0.5"},
		{name: "MultiStream", scenario: "MultiStream", want: "MultiStream target_latency = 0.5"},
		{name: "Server", scenario: "Server", want: "Server target_qps = 375"},
		{name: "unknown scenario", scenario: "Batch", wantErr: "calibrate Batch: unknown scenario"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeProber{capacity: 1000, service: time.Millisecond, bound: 4 * time.Millisecond, warm: 1}
			c, err := Choose(t.Context(), tc.scenario, f, s)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, fmt.Sprintf("%s %s = %s", c.Scenario, c.Key, c.Value))
		})
	}
}
