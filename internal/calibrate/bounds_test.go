package calibrate

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// esQueries is how many queries LoadGen's early stopping estimate of the
// 99th percentile needs.
const esQueries = 662

// tokenProber is an LLM system with token latencies under the Server
// scenario: at rate q its plain 99th percentile TTFT and TPOT are ttft(q)
// and tpot(q), and their early stopping estimates spread times those.
// A probe of d at q issues q × d queries.
type tokenProber struct {
	ttft, tpot            func(q float64) time.Duration
	spread                float64
	ttftBound, tpotBound  time.Duration
	latency, latencyBound time.Duration
	rates                 []float64
}

func (f *tokenProber) Count(context.Context, uint64) (Measurement, error) {
	return Measurement{}, nil
}

func (f *tokenProber) Rate(_ context.Context, qps float64, d time.Duration) (Measurement, error) {
	f.rates = append(f.rates, qps)
	n := uint64(qps * d.Seconds())
	tl := func(name string, plain, bound time.Duration) TokenLatency {
		t := TokenLatency{Name: name, Bound: bound, Percentile: plain, EarlyStoppingQueries: esQueries}
		if n >= esQueries {
			t.EarlyStopping = time.Duration(float64(plain) * f.spread)
		}
		return t
	}
	ft, tp := f.ttft(qps), f.tpot(qps)
	return Measurement{TargetQPS: qps, Samples: n, Queries: n, Duration: d, LatencyPercentile: 0.99,
		// LoadGen's own verdict with token latencies: the plain percentiles.
		LatencyMet:        ft <= f.ttftBound && tp <= f.tpotBound,
		PercentileLatency: f.latency, LatencyBound: f.latencyBound,
		Tokens: []TokenLatency{tl("TTFT", ft, f.ttftBound), tl("TPOT", tp, f.tpotBound)}}, nil
}

// queueing is a latency that grows with the rate as a queue's does,
// base / (1 - q/1000), unbounded at 1000.
func queueing(base time.Duration) func(float64) time.Duration {
	return func(q float64) time.Duration {
		if q >= 1000 {
			return time.Hour
		}
		return time.Duration(float64(base) / (1 - q/1000))
	}
}

// batching is a latency that grows linearly with the rate, base × (1 +
// 3q/1000): larger batches decode each token more slowly.
func batching(base time.Duration) func(float64) time.Duration {
	return func(q float64) time.Duration { return time.Duration(float64(base) * (1 + 3*q/1000)) }
}

func constant(d time.Duration) func(float64) time.Duration {
	return func(float64) time.Duration { return d }
}

func TestSearchPeakTokenLatencies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		f           tokenProber
		d           time.Duration
		want        float64
		wantBounded string
		wantNote    string
	}{
		// Estimate 1.5 ms / (1 - q/1000) <= 4.2 ms up to q = 642.9: 500
		// ok, 750 no, 625 ok, 687.5 no. The plain TTFT (3.2 ms at 687.5)
		// would have met the bound.
		{name: "TTFT binds", d: 2 * time.Second,
			f: tokenProber{ttft: queueing(time.Millisecond), tpot: constant(10 * time.Microsecond), spread: 1.5,
				ttftBound: 4200 * time.Microsecond, tpotBound: 100 * time.Microsecond},
			want: 625, wantBounded: "TTFT p99 (early stopping) 4.8ms > 4.2ms bound at 687.5 queries/s"},
		// Estimate 25 µs × (1 + 3q/1000) <= 80 µs up to q = 733.3: 500
		// ok, 750 no, 625 ok, 687.5 ok. The plain TPOT (65 µs at 750)
		// would have met the bound.
		{name: "TPOT binds", d: 2 * time.Second,
			f: tokenProber{ttft: constant(time.Millisecond), tpot: batching(20 * time.Microsecond), spread: 1.25,
				ttftBound: 2 * time.Second, tpotBound: 80 * time.Microsecond},
			want: 687.5, wantBounded: "TPOT p99 (early stopping) 81.25µs > 80µs bound at 750 queries/s"},
		// Probes of half a second issue at most 500 queries, too few for
		// an estimate: the plain TTFT 1 ms / (1 - q/1000) <= 4.2 ms up to
		// q = 761.9: 500 ok, 750 ok, 875 no, 812.5 no.
		{name: "too few queries for early stopping", d: 500 * time.Millisecond,
			f: tokenProber{ttft: queueing(time.Millisecond), tpot: constant(10 * time.Microsecond), spread: 1.5,
				ttftBound: 4200 * time.Microsecond, tpotBound: 100 * time.Microsecond},
			want:        750,
			wantBounded: "TTFT p99 (plain: 406 queries, early stopping needs 662) 5.33ms > 4.2ms bound at 812.5 queries/s",
			wantNote:    "TTFT and TPOT at 750 queries/s judged at the plain p99: 375 queries, early stopping needs 662"},
		// A target_latency of the user's bounds the sample latency too.
		{name: "sample latency bound", d: 2 * time.Second,
			f: tokenProber{ttft: constant(time.Millisecond), tpot: constant(10 * time.Microsecond), spread: 1.5,
				ttftBound: 2 * time.Second, tpotBound: 100 * time.Microsecond, latency: 30 * time.Millisecond, latencyBound: 20 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.f
			p, err := SearchPeak(t.Context(), &f, 1000, 4, tc.d)
			if tc.want == 0 {
				require.ErrorContains(t, err, "no Server rate down to 62.5 queries/s met the latency bounds: latency p99 30ms > 20ms bound")
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tc.want, p.QPS, 1e-9)
			assert.Equal(t, tc.wantBounded, p.Bounded)
			assert.Equal(t, tc.wantNote, p.Note)
			c := Server(p, 2)
			assert.Contains(t, c.Probe, "bounded by "+tc.wantBounded)
		})
	}
}

// TestSearchPeakTokenBoundsMissed checks that a system that misses both
// token bounds at every rate says so.
func TestSearchPeakTokenBoundsMissed(t *testing.T) {
	t.Parallel()
	f := &tokenProber{ttft: constant(3 * time.Second), tpot: constant(200 * time.Microsecond), spread: 1,
		ttftBound: 2 * time.Second, tpotBound: 100 * time.Microsecond}
	_, err := SearchPeak(t.Context(), f, 1000, 2, 4*time.Second)
	require.EqualError(t, err, "no Server rate down to 250 queries/s met the latency bounds: "+
		"TTFT p99 (early stopping) 3s > 2s bound and TPOT p99 (early stopping) 200µs > 100µs bound")
}

func TestMisses(t *testing.T) {
	t.Parallel()
	tokens := func(ttftES, ttftPlain time.Duration) []TokenLatency {
		return []TokenLatency{
			{Name: "TTFT", Bound: 2 * time.Millisecond, Percentile: ttftPlain, EarlyStopping: ttftES, EarlyStoppingQueries: esQueries},
			{Name: "TPOT", Bound: 100 * time.Microsecond, Percentile: 50 * time.Microsecond, EarlyStopping: 60 * time.Microsecond, EarlyStoppingQueries: esQueries},
		}
	}
	for _, tc := range []struct {
		name string
		m    Measurement
		want string
	}{
		{name: "sample latency met", m: Measurement{LatencyMet: true, PercentileLatency: 5 * time.Millisecond, LatencyBound: 10 * time.Millisecond, LatencyPercentile: 0.99}},
		// Without token latencies LoadGen's verdict is the one.
		{name: "sample latency missed", m: Measurement{PercentileLatency: 15 * time.Millisecond, LatencyBound: 10 * time.Millisecond, LatencyPercentile: 0.99},
			want: "latency p99 15ms > 10ms bound"},
		{name: "another percentile", m: Measurement{PercentileLatency: 15 * time.Millisecond, LatencyBound: 10 * time.Millisecond, LatencyPercentile: 0.999},
			want: "latency p99.9 15ms > 10ms bound"},
		{name: "token estimates met", m: Measurement{Queries: 1000, LatencyPercentile: 0.99, Tokens: tokens(1900*time.Microsecond, time.Millisecond)}},
		// The plain TTFT meets the bound; its estimate does not.
		{name: "TTFT estimate missed", m: Measurement{Queries: 1000, LatencyMet: true, LatencyPercentile: 0.99, Tokens: tokens(2100*time.Microsecond, time.Millisecond)},
			want: "TTFT p99 (early stopping) 2.1ms > 2ms bound"},
		// Too few queries: the plain percentile, which meets the bound.
		{name: "too few queries", m: Measurement{Queries: 661, LatencyPercentile: 0.99, Tokens: tokens(0, time.Millisecond)}},
		{name: "too few queries, plain missed", m: Measurement{Queries: 100, LatencyPercentile: 0.99, Tokens: tokens(0, 3*time.Millisecond)},
			want: "TTFT p99 (plain: 100 queries, early stopping needs 662) 3ms > 2ms bound"},
		// Interactive's target_latency is 0: no sample latency bound.
		{name: "no sample latency bound", m: Measurement{Queries: 1000, LatencyPercentile: 0.99, PercentileLatency: time.Second,
			Tokens: tokens(time.Millisecond, time.Millisecond)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, joinMisses(tc.m.misses()))
		})
	}
}
