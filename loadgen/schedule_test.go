package loadgen

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The vectors below were printed by a small C++ program that replays the
// official LoadGen's generation sequence (shuffle of the QSL, the up-front
// accuracy and equal-issue permutations, the per-sample draws, the
// exponential schedule) on GCC 12's libstdc++.

func parseVector(t *testing.T, s string) []uint64 {
	t.Helper()
	var v []uint64
	for _, f := range strings.Fields(s) {
		n, err := strconv.ParseUint(f, 10, 64)
		require.NoError(t, err)
		v = append(v, n)
	}
	return v
}

const (
	vecQSL100 = "0 74 67 81 42 68 88 20 3 37 82 60 13 39 50 12 64 84 36 54 66 25 15 77 53 38 23 99 40 28 62 16 85 9 96 10 73 43 86 93 45 4 76 48 95 91 34 41 90 7 61 71 51 58 55 14 59 63 19 83 87 8 27 46 17 65 31 75 98 2 44 24 72 89 69 70 29 79 35 92 80 33 21 30 5 94 78 6 1 56 47 97 26 57 49 11 18 52 32 22"
	vecSSPerf = "54 62 39 16 12 42 82 0 3 40 23 28 62 64 38 99 20 84 64 74 82 25 38 16 36 88 77 38 3 81 42 25 12 67 20 88 36 54 23 23"
	vecSSAcc  = "12 62 16 53 60 13 20 38 99 88 66 84 64 54 74 81 3 39 37 40 68 50 82 77 0 23 42 67 25 28 36 15"
	vecMS     = "15 14 26 10 27 24 14 21 26 26"
	vecServer = "0 1832647 3626824 4725411 5068501 5296975 6148989 6475178 7792059 7999362 8701070 8808407"
	vecConcat = "81 67 88 20 3 0 37 42 68 74 67 88 37 81 42 68 0 3 74 20 74 67 0 3 68 20 81 88 42 37"

	seedQSL      = 1780908523862526354
	seedSample   = 14771362308971278857
	seedSchedule = 18209322760996052031
)

func testEffective(t *testing.T, modify func(*TestSettings), qslPerformanceCount uint64) effective {
	t.Helper()
	s := DefaultTestSettings()
	s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed = seedQSL, seedSample, seedSchedule
	modify(&s)
	require.NoError(t, s.Validate())
	e, errs := newEffective(s, qslPerformanceCount)
	require.Empty(t, errs)
	return e
}

func TestGenerateLoadableSets(t *testing.T) {
	t.Parallel()
	want := parseVector(t, vecQSL100)
	tests := []struct {
		name      string
		scenario  Scenario
		perfCount uint64
		sizes     []int
		padding   int
	}{
		{name: "sets of 32 and a remainder", scenario: Offline, perfCount: 32, sizes: []int{32, 32, 32, 4}},
		{name: "one set when the count is the whole QSL", scenario: SingleStream, perfCount: 100, sizes: []int{100}},
		{name: "count larger than the QSL", scenario: Server, perfCount: 1000, sizes: []int{100}},
		{name: "multistream pads with the first samples", scenario: MultiStream, perfCount: 32, sizes: []int{32, 32, 32, 4}, padding: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := testEffective(t, func(s *TestSettings) { s.Scenario = tt.scenario }, tt.perfCount)
			sets := generateLoadableSets(100, &e, nil)
			require.Len(t, sets, len(tt.sizes))
			off := 0
			for i, set := range sets {
				assert.Equal(t, tt.sizes[i], set.end)
				assert.Equal(t, want[off:off+set.end], set.samples[:set.end])
				require.Len(t, set.samples, set.end+tt.padding)
				for p := range tt.padding {
					assert.Equal(t, set.samples[p%set.end], set.samples[set.end+p])
				}
				off += set.end
			}
		})
	}
}

func firstSet(t *testing.T, e *effective) loadableSet {
	t.Helper()
	sets := generateLoadableSets(100, e, nil)
	require.NotEmpty(t, sets)
	return sets[0]
}

func TestGenerateQueriesSingleStreamPerformance(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) { s.MinQueryCount = 1024; s.MinDuration = time.Millisecond }, 32)
	q := generateQueries(&e, PerformanceOnly, firstSet(t, &e), nil)
	assert.Equal(t, parseVector(t, vecSSPerf), q.samples[:40])
	assert.Equal(t, 1, q.perQuery)
	// 1024 queries cover twice the 1 ms duration at the 1 ms expected latency.
	assert.Equal(t, 1024, q.queries)
	assert.Nil(t, q.scheduled)
}

func TestGenerateQueriesSingleStreamAccuracy(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) { s.Mode = AccuracyOnly }, 32)
	q := generateQueries(&e, AccuracyOnly, firstSet(t, &e), nil)
	assert.Equal(t, parseVector(t, vecSSAcc), q.samples)
	assert.Equal(t, 32, q.queries, "every loaded sample once")
}

func TestGenerateQueriesMultiStream(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) {
		s.Scenario = MultiStream
		s.MinQueryCount = 270
		s.MinDuration = 0
	}, 32)
	set := firstSet(t, &e)
	q := generateQueries(&e, PerformanceOnly, set, nil)
	require.Equal(t, 270, q.queries)
	for k, start := range parseVector(t, vecMS) {
		lo, hi := q.span(k)
		require.Equal(t, 8, hi-lo)
		assert.Equal(t, set.samples[start:start+8], q.samples[lo:hi], "query %d is contiguous from %d", k, start)
	}
}

func TestGenerateQueriesMultiStreamAccuracyCoversSet(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) { s.Scenario = MultiStream; s.Mode = AccuracyOnly }, 30)
	set := firstSet(t, &e)
	q := generateQueries(&e, AccuracyOnly, set, nil)
	// Starts 0, 8, 16, 24: four queries, the last reaching into the padding.
	assert.Equal(t, 4, q.queries)
	seen := map[uint64]bool{}
	for _, s := range q.samples {
		seen[s] = true
	}
	for _, s := range set.samples[:set.end] {
		assert.True(t, seen[s], "sample %d issued", s)
	}
}

func TestGenerateQueriesServer(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) {
		s.Scenario = Server
		s.ServerTargetQPS = 1000
		s.MinDuration = 50 * time.Millisecond
		s.MinQueryCount = 10
	}, 32)
	q := generateQueries(&e, PerformanceOnly, firstSet(t, &e), nil)
	want := parseVector(t, vecServer)
	for i, w := range want {
		assert.Equal(t, int64(w), q.scheduled[i], "query %d", i)
	}
	// Generated until the scheduled time passes the duration, once.
	last := q.scheduled[q.queries-1]
	assert.GreaterOrEqual(t, last, int64(50*time.Millisecond))
	assert.Less(t, q.scheduled[q.queries-2], int64(50*time.Millisecond))
	assert.Greater(t, q.duration, last)
}

func TestGenerateQueriesServerConstant(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) {
		s.Scenario = Server
		s.ServerTargetQPS = 3
		s.ServerConstantGen = true
		s.MinDuration = time.Second
		s.MinQueryCount = 1
	}, 32)
	q := generateQueries(&e, PerformanceOnly, firstSet(t, &e), nil)
	// 1/3 s truncates to 333333333 ns, so the fourth query lands just
	// before 1 s and a fifth is generated.
	require.Equal(t, 5, q.queries)
	assert.Equal(t, []int64{0, 333333333, 666666666, 999999999, 1333333332}, q.scheduled)
}

func TestGenerateQueriesOfflineConcatenatePermutation(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) {
		s.Scenario = Offline
		s.SampleIndexRNGSeed = 5
		s.SampleConcatenatePermutation = true
		s.MinQueryCount = 30
		s.MinDuration = 0
	}, 10)
	q := generateQueries(&e, PerformanceOnly, firstSet(t, &e), nil)
	assert.Equal(t, 1, q.queries)
	assert.Equal(t, parseVector(t, vecConcat), q.samples)
}

func TestGenerateQueriesOfflineRepeatsLoadedSet(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) {
		s.Scenario = Offline
		s.OfflineExpectedQPS = 100
		s.MinDuration = 100 * time.Millisecond
		s.MinQueryCount = 1
	}, 4)
	set := firstSet(t, &e)
	q := generateQueries(&e, PerformanceOnly, set, nil)
	// 1.1 * 0.1 s * 100 QPS = 11 samples: the 4 loaded ones twice, then 3.
	require.Equal(t, 11, len(q.samples))
	want := append(append(append([]uint64{}, set.samples...), set.samples...), set.samples[:3]...)
	assert.Equal(t, want, q.samples)
}

func TestGenerateQueriesPerformanceIssueModes(t *testing.T) {
	t.Parallel()
	t.Run("unique issues each loaded sample once", func(t *testing.T) {
		t.Parallel()
		e := testEffective(t, func(s *TestSettings) { s.Scenario = Server; s.PerformanceIssueUnique = true }, 32)
		set := firstSet(t, &e)
		q := generateQueries(&e, PerformanceOnly, set, nil)
		assert.ElementsMatch(t, set.samples, q.samples)
	})
	t.Run("same repeats one sample", func(t *testing.T) {
		t.Parallel()
		e := testEffective(t, func(s *TestSettings) {
			s.PerformanceIssueSame = true
			s.PerformanceIssueSameIndex = 3
			s.MinQueryCount = 50
			s.MinDuration = 0
		}, 32)
		set := firstSet(t, &e)
		q := generateQueries(&e, PerformanceOnly, set, nil)
		for _, s := range q.samples {
			require.Equal(t, set.samples[3], s)
		}
	})
}

func TestGenerateQueriesEqualIssueServer(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) {
		s.Scenario = Server
		s.ServerTargetQPS = 100
		s.SampleConcatenatePermutation = true
		s.MinQueryCount = 10
		s.MinDuration = 0
	}, 8)
	set := firstSet(t, &e)
	q := generateQueries(&e, PerformanceOnly, set, nil)
	// min_queries rounds up to a multiple of the 8 loaded samples, and each
	// block of 8 queries is a permutation.
	require.Equal(t, 16, q.queries)
	for b := 0; b < 16; b += 8 {
		assert.ElementsMatch(t, set.samples, q.samples[b:b+8])
	}
}

func BenchmarkGenerateQueriesServer(b *testing.B) {
	s := DefaultTestSettings()
	s.Scenario = Server
	s.ServerTargetQPS = 10000
	s.MinDuration = 60 * time.Second
	s.MinQueryCount = 270336
	e, _ := newEffective(s, 1024)
	set := generateLoadableSets(50000, &e, nil)[0]
	b.ReportAllocs()
	for b.Loop() {
		generateQueries(&e, PerformanceOnly, set, nil)
	}
}
