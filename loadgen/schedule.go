package loadgen

import (
	"github.com/mlperf-host/mlperf-host/loadgen/internal/rng"
)

// loadableSet is a set of QSL samples loaded together: the official
// LoadableSampleSet.
type loadableSet struct {
	// samples are QSL indices in load order, followed in MultiStream by
	// samplesPerQuery-1 padding samples repeated from the front, so that a
	// query can start at any of the first end samples and stay contiguous.
	samples []uint64
	// end is the number of samples without the padding
	// (sample_distribution_end).
	end int
}

// generateLoadableSets is the official GenerateLoadableSets of LoadGen
// 6.0: the QSL indices [0, min(count, total)) are shuffled with the
// qsl_rng_seed engine and cut into sets of performance_sample_count
// samples (the last set may be smaller). A performance run passes the
// performance sample count, so it loads a permutation of the QSL's first
// samples; an accuracy run passes the accuracy sample count.
//
// A grouped QSL (use_grouped_qsl) follows the grouped LoadGen it comes
// from, which predates 6.0: whole groups of the whole QSL.
func generateLoadableSets(total, count uint64, e *effective, groups GroupedQSL) []loadableSet {
	if e.useGroupedQSL && groups != nil {
		return generateGroupedSets(total, e, groups)
	}
	all := make([]uint64, min(count, total))
	for i := range all {
		all[i] = uint64(i)
	}
	rng.Shuffle(rng.NewMT19937(e.qslRNGSeed), all)

	size := int(min(e.performanceSampleCount, uint64(len(all))))
	if e.performanceSampleCount == 0 {
		// A set of size 0 never fills up: everything lands in one set.
		size = len(all)
	}
	padding := 0
	if e.scenario == MultiStream && e.samplesPerQuery > 0 {
		padding = int(e.samplesPerQuery - 1)
	}
	var sets []loadableSet
	for len(all) > 0 {
		n := min(size, len(all))
		sets = append(sets, padded(all[:n], padding))
		all = all[n:]
	}
	return sets
}

// padded copies set and appends the MultiStream padding.
func padded(set []uint64, padding int) loadableSet {
	n := len(set)
	s := make([]uint64, n, n+padding)
	copy(s, set)
	for i := range padding {
		s = append(s, s[i%n])
	}
	return loadableSet{samples: s, end: n}
}

// generateGroupedSets is the grouped branch of the official
// GenerateLoadableSets: the groups are shuffled (their samples keep their
// order) and whole groups fill each set until it reaches the performance
// sample count.
func generateGroupedSets(total uint64, e *effective, g GroupedQSL) []loadableSet {
	n := g.NumberOfGroups()
	groups := make([]uint64, n)
	first := make([]uint64, n)
	var acc uint64
	for i := range groups {
		groups[i] = uint64(i)
		first[i] = acc
		acc += g.GroupSize(uint64(i))
	}
	rng.Shuffle(rng.NewMT19937(e.qslRNGSeed), groups)
	padding := 0
	if e.scenario == MultiStream && e.samplesPerQuery > 0 {
		padding = int(e.samplesPerQuery - 1)
	}
	var sets []loadableSet
	var set []uint64
	for _, grp := range groups {
		for j := range g.GroupSize(grp) {
			if first[grp]+j < total {
				set = append(set, first[grp]+j)
			}
		}
		if uint64(len(set)) >= e.performanceSampleCount && len(set) > 0 {
			sets = append(sets, padded(set, padding))
			set = set[:0]
		}
	}
	if len(set) > 0 {
		sets = append(sets, padded(set, padding))
	}
	return sets
}

// querySchedule is the whole run as data: every sample of every query in
// issue order and, in the Server scenario, every query's scheduled time.
type querySchedule struct {
	// samples holds the QSL index of every sample; query k is
	// samples[k*perQuery : min((k+1)*perQuery, len(samples))].
	samples []uint64
	// perQuery is the generated samples per query.
	perQuery int
	// queries is the number of queries.
	queries int
	// scheduled holds, for the Server scenario, each query's scheduled time
	// in nanoseconds from the start of issuing; nil otherwise.
	scheduled []int64
	// duration is the generator's final timestamp
	// (generated_query_duration), in nanoseconds.
	duration int64
}

// span returns the sample range of query k.
func (q *querySchedule) span(k int) (lo, hi int) {
	lo = k * q.perQuery
	return lo, min(lo+q.perQuery, len(q.samples))
}

// queryOf returns the query sample i belongs to.
func (q *querySchedule) queryOf(i int) int {
	return min(i/q.perQuery, q.queries-1)
}

// strideShuffle is the official accuracy-mode SampleDistribution: the
// positions 0, stride, 2*stride... below count, shuffled with g.
func strideShuffle(g *rng.MT19937, count, stride int) []int {
	if stride <= 0 {
		stride = 1
	}
	idx := make([]int, 0, (count+stride-1)/stride)
	for i := 0; i < count; i += stride {
		idx = append(idx, i)
	}
	rng.Shuffle(g, idx)
	return idx
}

// equalIssueOrder is the official SampleDistributionEqualIssue: enough
// back-to-back permutations of 0..setSize-1 to cover count draws.
func equalIssueOrder(g *rng.MT19937, count uint64, setSize int) []int {
	if setSize == 0 {
		return nil
	}
	perm := make([]int, setSize)
	for i := range perm {
		perm[i] = i
	}
	var idx []int
	for j := uint64(0); j < count; j += uint64(setSize) {
		rng.Shuffle(g, perm)
		idx = append(idx, perm...)
	}
	return idx
}

// estimateSamples guesses how many samples generateQueries will produce, to
// allocate once: the queries the duration needs at the target rate, or the
// minimum count, whichever is larger (capped, since it is only a hint).
func estimateSamples(e *effective, genDuration int64, minQueries uint64, perQuery int) int {
	const maxHint = 1 << 26
	queries := float64(minQueries)
	if e.targetQPS > 0 {
		queries = max(queries, float64(genDuration)/1e9*e.targetQPS+2)
	}
	if e.scenario == Offline {
		queries = 1
	}
	return int(min(queries*float64(perQuery), maxHint))
}
