package loadgen

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groupedQSL has groups of the given sizes over consecutive indices.
type groupedQSL struct {
	fakeQSL
	sizes []uint64
}

func newGroupedQSL(perf uint64, sizes ...uint64) *groupedQSL {
	var total uint64
	for _, s := range sizes {
		total += s
	}
	return &groupedQSL{fakeQSL: fakeQSL{total: total, perf: perf}, sizes: sizes}
}

func (g *groupedQSL) NumberOfGroups() uint64    { return uint64(len(g.sizes)) }
func (g *groupedQSL) GroupSize(i uint64) uint64 { return g.sizes[i] }
func (g *groupedQSL) GroupOf(idx uint64) uint64 {
	for i, s := range g.sizes {
		if idx < s {
			return uint64(i)
		}
		idx -= s
	}
	return uint64(len(g.sizes) - 1)
}

func TestGroupedLoadableSets(t *testing.T) {
	t.Parallel()
	g := newGroupedQSL(6, 3, 1, 4, 2, 5)
	e := testEffective(t, func(s *TestSettings) { s.UseGroupedQSL = true }, 6)
	sets := generateLoadableSets(g.total, g.total, &e, g)
	var all []uint64
	for _, set := range sets {
		all = append(all, set.samples[:set.end]...)
		// Whole groups only: each set ends at a group's end.
		last := set.samples[set.end-1]
		grp := g.GroupOf(last)
		assert.True(t, g.GroupOf(last+1) != grp || last+1 == g.total)
	}
	assert.ElementsMatch(t, []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, all)
	// Sets close once they reach the count, so they may exceed it.
	for _, set := range sets[:len(sets)-1] {
		assert.GreaterOrEqual(t, set.end, 6)
	}
}

func TestGroupedQueries(t *testing.T) {
	t.Parallel()
	g := newGroupedQSL(15, 3, 1, 4, 2, 5)
	e := testEffective(t, func(s *TestSettings) {
		s.Scenario = Server
		s.ServerTargetQPS = 100
		s.UseGroupedQSL = true
		s.MinQueryCount = 30
		s.MinDuration = 0
	}, 15)
	set := generateLoadableSets(g.total, g.total, &e, g)[0]
	q := generateQueries(&e, PerformanceOnly, set, g)
	require.GreaterOrEqual(t, q.queries, 30)
	// Queries come in whole groups, in index order, 10 ms apart.
	for i := 0; i < q.queries; {
		grp := g.GroupOf(q.samples[i])
		size := int(g.GroupSize(grp))
		for j := range size {
			assert.Equal(t, q.samples[i]+uint64(j), q.samples[i+j])
		}
		i += size
	}
	for k := 1; k < q.queries; k++ {
		assert.Equal(t, int64(10*time.Millisecond), q.scheduled[k]-q.scheduled[k-1])
	}
}

func TestGroupedRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		sut := newFakeSUT(serviceTime(time.Millisecond, 0))
		sut.start()
		defer sut.stop()
		s := baseSettings()
		s.Scenario = Server
		s.ServerTargetQPS = 200
		s.ServerTargetLatency = 10 * time.Millisecond
		s.UseGroupedQSL = true
		s.MinQueryCount = 500
		res, err := StartTest(context.Background(), sut, newGroupedQSL(40, 3, 1, 4, 2, 5, 3, 3, 4, 6, 9), s, goldenLogSettings(dir), withSpin(0))
		require.NoError(t, err)
		p := res.Performance
		require.NotNil(t, p.GroupLatency)
		assert.Positive(t, p.GroupLatency.Count)
		assert.GreaterOrEqual(t, p.GroupLatency.Min, time.Millisecond)
		assert.Positive(t, p.GroupsPerSecond)
	})
	checkGolden(t, "server_grouped.summary", readLog(t, dir, "summary.txt"))
	checkGolden(t, "server_grouped.detail", readLog(t, dir, "detail.txt"))
}

func TestGroupedNeedsGroupedQSL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		qsl      QSL
		scenario Scenario
		want     string
	}{
		{name: "plain QSL", qsl: &fakeQSL{total: 8, perf: 8}, scenario: Server, want: "implements GroupedQSL"},
		{name: "offline", qsl: newGroupedQSL(8, 4, 4), scenario: Offline, want: "not Offline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := smallSettings(tt.scenario)
			s.UseGroupedQSL = true
			_, err := StartTest(context.Background(), newFakeSUT(nil), tt.qsl, s, LogSettings{OutDir: t.TempDir()})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
