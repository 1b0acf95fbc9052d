package loadgen

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The official v5.1 seeds; testdata/official covers the v6.0 and v6.1 ones.
const (
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
	e, errs := newEffective(s, qslPerformanceCount, 100)
	require.Empty(t, errs)
	return e
}

// TestPerformanceSetIsFirstSamples checks the LoadGen 6.0 rule on its
// own: a performance run loads a permutation of the QSL's first
// min(performance_sample_count, total) samples, and nothing when that is
// zero.
func TestPerformanceSetIsFirstSamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		scenario  Scenario
		perfCount uint64
		want      int
	}{
		{name: "a third of the QSL", scenario: Server, perfCount: 32, want: 32},
		{name: "the whole QSL", scenario: SingleStream, perfCount: 100, want: 100},
		{name: "more than the QSL", scenario: Offline, perfCount: 1000, want: 100},
		{name: "multistream pads", scenario: MultiStream, perfCount: 10, want: 10},
		{name: "zero loads nothing", scenario: Server, perfCount: 0, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := testEffective(t, func(s *TestSettings) { s.Scenario = tt.scenario }, tt.perfCount)
			e.performanceSampleCount = tt.perfCount // 0 would fall back to the QSL's count
			sets := generateLoadableSets(100, e.performanceSampleCount, &e, nil)
			if tt.want == 0 {
				assert.Empty(t, sets)
				return
			}
			require.Len(t, sets, 1)
			got := append([]uint64(nil), sets[0].samples[:sets[0].end]...)
			slices.Sort(got)
			for i, v := range got {
				require.Equal(t, uint64(i), v)
			}
			assert.Len(t, got, tt.want)
			if tt.scenario == MultiStream {
				assert.Equal(t, sets[0].samples[:7], sets[0].samples[sets[0].end:], "padded with the first samples_per_query-1")
			}
		})
	}
}

func firstSet(t *testing.T, e *effective) loadableSet {
	t.Helper()
	sets := generateLoadableSets(100, e.performanceSampleCount, e, nil)
	require.NotEmpty(t, sets)
	return sets[0]
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

func TestGenerateQueriesServerStopsAfterDuration(t *testing.T) {
	t.Parallel()
	e := testEffective(t, func(s *TestSettings) {
		s.Scenario = Server
		s.ServerTargetQPS = 1000
		s.MinDuration = 50 * time.Millisecond
		s.MinQueryCount = 10
	}, 32)
	q := generateQueries(&e, PerformanceOnly, firstSet(t, &e), nil)
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
	require.Len(t, q.samples, 11)
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
	e, _ := newEffective(s, 1024, 50000)
	set := generateLoadableSets(50000, e.performanceSampleCount, &e, nil)[0]
	b.ReportAllocs()
	for b.Loop() {
		generateQueries(&e, PerformanceOnly, set, nil)
	}
}
