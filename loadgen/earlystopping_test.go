package loadgen

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEarlyStoppingMinQueries(t *testing.T) {
	t.Parallel()
	// The official summary's "Need to process at least 662 queries" (99th)
	// and 64 (90th).
	assert.Equal(t, uint64(662), EarlyStoppingMinQueries(0.99))
	assert.Equal(t, uint64(64), EarlyStoppingMinQueries(0.90))
}

// tokenSummary is the summary of a Server run with token latencies of n
// queries whose i-th first token came after ttft(i) and whose time per
// output token was tpot(i).
func tokenSummary(t *testing.T, n int, ttft, tpot func(int) int64) *perfSummary {
	t.Helper()
	s := DefaultTestSettings()
	s.Scenario, s.UseTokenLatencies = Server, true
	s.ServerTTFTLatency, s.ServerTPOTLatency = 2*time.Millisecond, 100*time.Microsecond
	e, errs := newEffective(s, 16, 64)
	require.Empty(t, errs)
	pr := perfResult{queriesIssued: uint64(n), samplesIssued: n}
	for i := range n {
		pr.sampleLatencies = append(pr.sampleLatencies, ttft(i)+10*tpot(i))
		pr.firstToken = append(pr.firstToken, ttft(i))
		pr.timePerToken = append(pr.timePerToken, tpot(i))
		pr.tokensPerSample = append(pr.tokensPerSample, 11)
	}
	return newPerfSummary("FakeSUT", &e, pr, 0)
}

// singleStreamEstimate is the SingleStream summary's 99th percentile
// early stopping estimate of the same latencies over n queries.
func singleStreamEstimate(t *testing.T, latencies []int64) time.Duration {
	t.Helper()
	e, errs := newEffective(DefaultTestSettings(), 16, 64)
	require.Empty(t, errs)
	lat := slices.Clone(latencies)
	ps := newPerfSummary("FakeSUT", &e, perfResult{queriesIssued: uint64(len(lat)), sampleLatencies: lat}, 0)
	ok, _ := ps.earlyStopping(ps.pr.sampleLatencies, 0)
	require.True(t, ok)
	return time.Duration(ps.earlyStoppingMS)
}

func TestTokenBound(t *testing.T) {
	t.Parallel()
	// 2000 queries, first tokens 1 µs apart from 1 µs (the 99th
	// percentile of 2000: 1981 µs), TPOT 50 µs but every 40th 200 µs.
	ttft := func(i int) int64 { return int64(i+1) * 1000 }
	tpot := func(i int) int64 {
		if i%40 == 0 {
			return 200_000
		}
		return 50_000
	}
	ps := tokenSummary(t, 2000, ttft, tpot)
	r := ps.result()
	require.NotNil(t, r.FirstTokenBound)
	require.NotNil(t, r.TimePerOutputTokenBound)
	ft, tp := *r.FirstTokenBound, *r.TimePerOutputTokenBound
	assert.Equal(t, 2*time.Millisecond, ft.Bound)
	assert.Equal(t, 100*time.Microsecond, tp.Bound)
	assert.Equal(t, 1981*time.Microsecond, ft.Latency)
	assert.Equal(t, uint64(662), ft.EarlyStoppingQueries)

	// The estimate is the SingleStream summary's for the same latencies:
	// above the plain percentile, below the bound.
	assert.Equal(t, singleStreamEstimate(t, ps.pr.firstToken), ft.EarlyStopping)
	assert.Greater(t, ft.EarlyStopping, ft.Latency)
	assert.LessOrEqual(t, ft.EarlyStopping, ft.Bound)
	// One TPOT in 40 (2.5%) over the bound: the plain 99th percentile and
	// the estimate both miss it.
	assert.Equal(t, 200*time.Microsecond, tp.Latency)
	assert.Equal(t, 200*time.Microsecond, tp.EarlyStopping)

	// An estimate within its bound passes the official Server early
	// stopping at the same query count.
	bound := int64(ft.EarlyStopping)
	ok, rec := ps.earlyStopping(ps.pr.firstToken, bound)
	assert.True(t, ok, rec)
	ok, _ = ps.earlyStopping(ps.pr.timePerToken, int64(tp.Bound))
	assert.False(t, ok, "TPOT misses its bound")

	// Too few queries for an estimate: none, and how many it needs.
	few := tokenSummary(t, 500, ttft, tpot).result()
	require.NotNil(t, few.FirstTokenBound)
	assert.Zero(t, few.FirstTokenBound.EarlyStopping)
	assert.Equal(t, uint64(662), few.FirstTokenBound.EarlyStoppingQueries)
	assert.Equal(t, 496*time.Microsecond, few.FirstTokenBound.Latency)
}

// TestTokenBoundOnlyServerTokens checks that runs without token latencies
// report no token bounds.
func TestTokenBoundOnlyServerTokens(t *testing.T) {
	t.Parallel()
	s := DefaultTestSettings()
	s.Scenario = Server
	e, errs := newEffective(s, 16, 64)
	require.Empty(t, errs)
	r := newPerfSummary("FakeSUT", &e, perfResult{queriesIssued: 1, samplesIssued: 1, sampleLatencies: []int64{5}}, 0).result()
	assert.Nil(t, r.FirstTokenBound)
	assert.Nil(t, r.TimePerOutputTokenBound)
}
