package loadgen

import (
	"time"

	"github.com/mlperf-host/mlperf-host/loadgen/internal/earlystop"
)

// The official early stopping's confidence and tolerance.
const earlyStoppingConfidence, earlyStoppingTolerance = 0.99, 0.0

// earlyStoppingDiscard is the official estimate's loop: hMin is the
// fewest queries under latency that allow one over it, and t the largest
// count such that issued queries suffice for t over latency (the
// estimate then discards the t-1 highest latencies). enough is false
// when fewer than hMin+1 queries were issued, with no estimate.
func earlyStoppingDiscard(f *earlystop.Finder, issued int64, p float64) (hMin, t int64, enough bool) {
	hMin = f.MinPassing(1, p, earlyStoppingTolerance, earlyStoppingConfidence)
	t = 1
	if issued < hMin+1 {
		return hMin, t, false
	}
	for i := int64(2); i < issued+1; i++ {
		if h := f.MinPassing(i, p, earlyStoppingTolerance, earlyStoppingConfidence); issued < h+i {
			t = i - 1
			break
		}
	}
	return hMin, t, true
}

// nth is the official estimate's pick: sorted[i], or 0 outside it.
func nth(sorted []int64, i int64) int64 {
	if i < 0 || i >= int64(len(sorted)) {
		return 0
	}
	return sorted[i]
}

// EarlyStoppingMinQueries is how many queries the official early stopping
// needs for an estimate of the latency at percentile (a fraction, 0.99
// for the 99th): 662 for the 99th, 64 for the 90th.
func EarlyStoppingMinQueries(percentile float64) uint64 {
	return uint64(earlystop.NewFinder().MinPassing(1, percentile, earlyStoppingTolerance, earlyStoppingConfidence) + 1)
}

// TokenBound is one token latency of a Server run with token latencies
// (the time to first token, or the time per output token) against its
// bound.
type TokenBound struct {
	// Bound is server_ttft_latency or server_tpot_latency.
	Bound time.Duration
	// Latency is the latency at TargetLatencyPercentile, which the
	// performance constraint compares with Bound.
	Latency time.Duration
	// EarlyStopping is the early stopping estimate of the latency at
	// TargetLatencyPercentile over the queries issued, as the SingleStream
	// summary estimates its percentile: the highest latency left once
	// early stopping's allowance of the highest is discarded. An estimate
	// within Bound implies that the run's early stopping for this bound
	// is satisfied. EarlyStoppingQueries is how many queries an estimate
	// needs; with fewer issued, EarlyStopping is 0.
	EarlyStopping        time.Duration
	EarlyStoppingQueries uint64
}

// tokenBound is the TokenBound of the sorted token latencies against
// bound. Where fewer latencies than queries issued were recorded, the
// pick beyond them is the highest recorded, not the official pick's 0.
func (ps *perfSummary) tokenBound(f *earlystop.Finder, sorted []int64, latency, bound int64) *TokenBound {
	issued := int64(ps.pr.queriesIssued)
	hMin, t, ok := earlyStoppingDiscard(f, issued, ps.target.fraction)
	b := &TokenBound{Bound: time.Duration(bound), Latency: time.Duration(latency), EarlyStoppingQueries: uint64(hMin + 1)}
	if ok && len(sorted) > 0 {
		b.EarlyStopping = time.Duration(nth(sorted, min(issued-t, int64(len(sorted))-1)))
	}
	return b
}
