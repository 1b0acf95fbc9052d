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

// generateQueries builds the queries of one run over set, consuming the
// sample_index_rng_seed and schedule_rng_seed engines exactly as the
// official GenerateQueries does: both accuracy-style permutations and the
// equal-issue permutations are drawn up front whether used or not, then one
// uniform draw per sample (or per query start in MultiStream), then one
// exponential draw per Server query.
func generateQueries(e *effective, mode Mode, set loadableSet, groups GroupedQSL) querySchedule {
	loaded := set.samples
	n := len(loaded)
	isServer := e.scenario == Server
	isMulti := e.scenario == MultiStream
	isOffline := e.scenario == Offline

	durationMultiplier := int64(2)
	if isServer {
		durationMultiplier = 1
	}
	genDuration := durationMultiplier * e.targetDuration.Milliseconds() * 1e6
	minQueries := e.minQueryCount
	perQuery := int(e.samplesPerQuery)
	if mode == AccuracyOnly && isOffline {
		perQuery = set.end
	}
	if perQuery <= 0 {
		perQuery = 1
	}
	if mode == AccuracyOnly || e.performanceIssueUnique {
		// Never exit early: one pass over the loaded samples.
		genDuration = 0
		minQueries = uint64(n / perQuery)
	}

	sampleRNG := rng.NewMT19937(e.sampleIndexRNGSeed)
	scheduleRNG := rng.NewMT19937(e.scheduleRNGSeed)
	stride := 1
	if isMulti {
		stride = perQuery
	}
	var accuracyOrder []int
	if mode == AccuracyOnly {
		accuracyOrder = strideShuffle(sampleRNG, set.end, stride)
	}
	uniqueOrder := strideShuffle(sampleRNG, set.end, stride)
	equalOrder := equalIssueOrder(sampleRNG, minQueries, n)

	equalIssue := e.sampleConcatenatePermutation
	if mode != AccuracyOnly && equalIssue && n > 0 {
		switch {
		case isOffline && perQuery%n != 0:
			perQuery += n - perQuery%n
		case !isOffline && minQueries%uint64(n) != 0:
			minQueries += uint64(n) - minQueries%uint64(n)
		}
	}

	var accuracyNext, uniqueNext, equalNext int
	distribution := func() int {
		if mode == AccuracyOnly {
			v := accuracyOrder[accuracyNext%len(accuracyOrder)]
			accuracyNext++
			return v
		}
		return rng.UniformInt(sampleRNG, 0, set.end-1)
	}
	unique := func() int {
		v := uniqueOrder[uniqueNext%len(uniqueOrder)]
		uniqueNext++
		return v
	}
	same := int(e.performanceIssueSameIndex)
	if n > 0 {
		same %= n
	}

	period := 1 / e.targetQPS
	constantGap := func() int64 { return int64(rng.UniformReal(scheduleRNG, period, period) * 1e9) }
	var gap func() int64
	switch {
	case isServer && e.requested.ServerConstantGen:
		gap = constantGap
	case isServer:
		gap = func() int64 { return int64(rng.Exponential(scheduleRNG, e.targetQPS) * 1e9) }
	default:
		gap = func() int64 { return int64(period * 1e9) }
	}

	// Grouped QSL: where each group of the loaded set starts, and the
	// distribution over groups (drawn after everything above, as the
	// official does).
	grouped := e.useGroupedQSL && groups != nil
	var groupFirst []int
	var groupOrder []int
	groupNext := 0
	if grouped {
		for i := 0; i < n; {
			groupFirst = append(groupFirst, i)
			i += int(max(groups.GroupSize(groups.GroupOf(loaded[i])), 1))
		}
		if mode == AccuracyOnly {
			groupOrder = strideShuffle(sampleRNG, len(groupFirst), stride)
		}
	}
	nextGroup := func() int {
		if mode == AccuracyOnly {
			g := groupOrder[groupNext%len(groupOrder)]
			groupNext++
			return g
		}
		return rng.UniformInt(sampleRNG, 0, len(groupFirst)-1)
	}

	q := querySchedule{perQuery: perQuery}
	if n == 0 || set.end == 0 {
		return q
	}
	q.samples = make([]uint64, 0, estimateSamples(e, genDuration, minQueries, perQuery))
	if isServer {
		q.scheduled = make([]int64, 0, cap(q.samples)/perQuery)
	}
	var timestamp, prev int64
	for prev < genDuration || uint64(q.queries) < minQueries {
		if grouped && !isMulti && !isOffline {
			// A whole group, one sample per query, evenly spaced.
			g := nextGroup()
			first := groupFirst[g]
			size := int(groups.GroupSize(groups.GroupOf(loaded[first])))
			for i := range size {
				q.samples = append(q.samples, loaded[(first+i)%n])
				q.queries++
				if isServer {
					q.scheduled = append(q.scheduled, timestamp)
				}
				timestamp += constantGap()
			}
			prev = timestamp - constantGap()
			if equalIssue && uint64(q.queries) >= minQueries && prev < genDuration {
				minQueries += uint64(n)
			}
			continue
		}
		switch {
		case isMulti:
			var start int
			switch {
			case e.performanceIssueUnique:
				start = unique()
			case e.performanceIssueSame:
				start = same
			default:
				start = distribution()
			}
			for s := range perQuery {
				q.samples = append(q.samples, loaded[(start+s)%n])
			}
		case isOffline:
			if e.performanceIssueSame {
				for range perQuery {
					q.samples = append(q.samples, loaded[same])
				}
				break
			}
			for range perQuery / n {
				chunk := len(q.samples)
				q.samples = append(q.samples, loaded...)
				if e.sampleConcatenatePermutation {
					rng.Shuffle(sampleRNG, q.samples[chunk:])
				}
			}
			q.samples = append(q.samples, loaded[:perQuery%n]...)
		default:
			for range perQuery {
				var i int
				switch {
				case e.performanceIssueUnique:
					i = unique()
				case e.performanceIssueSame:
					i = same
				case equalIssue && len(equalOrder) > 0:
					i = equalOrder[equalNext%len(equalOrder)]
					equalNext++
				default:
					i = distribution()
				}
				q.samples = append(q.samples, loaded[i])
			}
		}
		q.queries++
		prev = timestamp
		if isServer {
			q.scheduled = append(q.scheduled, timestamp)
		}
		timestamp += gap()
		if equalIssue && uint64(q.queries) >= minQueries && prev < genDuration && !isOffline {
			minQueries += uint64(n)
		}
	}

	// Offline accuracy: a remainder query for what a full query left out.
	if isOffline && mode == AccuracyOnly {
		if rem := n % perQuery; rem != 0 {
			for range rem {
				q.samples = append(q.samples, loaded[distribution()])
			}
			q.queries++
		}
	}
	q.duration = timestamp
	return q
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
