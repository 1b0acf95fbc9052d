package loadgen

import (
	"github.com/mlperf-host/mlperf-host/loadgen/internal/rng"
)

// generateQueries builds the queries of one run over set, consuming the
// sample_index_rng_seed and schedule_rng_seed engines exactly as the
// official GenerateQueries does: both accuracy-style permutations and the
// equal-issue permutations are drawn up front whether used or not, then one
// uniform draw per sample (or per query start in MultiStream), then one
// exponential draw per Server query.
func generateQueries(e *effective, mode Mode, set loadableSet, groups GroupedQSL) querySchedule {
	g := newGenerator(e, mode, set, groups)
	q := querySchedule{perQuery: g.perQuery}
	if len(g.loaded) == 0 || set.end == 0 {
		return q
	}
	g.q = &q
	q.samples = make([]uint64, 0, estimateSamples(e, g.genDuration, g.minQueries, g.perQuery))
	if g.isServer {
		q.scheduled = make([]int64, 0, cap(q.samples)/g.perQuery)
	}
	for g.prev < g.genDuration || uint64(q.queries) < g.minQueries {
		if g.grouped && !g.isMulti && !g.isOffline {
			g.addGroup()
			continue
		}
		g.addQuery()
	}
	if g.isOffline && mode == AccuracyOnly {
		g.addOfflineRemainder()
	}
	q.duration = g.timestamp
	return q
}

// generator is the state of one generateQueries: the limits, the random
// streams and the orders drawn from them, and the schedule being built.
type generator struct {
	e      *effective
	mode   Mode
	set    loadableSet
	loaded []uint64
	groups GroupedQSL

	isServer, isMulti, isOffline bool

	// Limits: generate until the scheduled time reaches genDuration and
	// there are minQueries queries of perQuery samples.
	genDuration int64
	minQueries  uint64
	perQuery    int
	equalIssue  bool

	sampleRNG, scheduleRNG *rng.MT19937
	// The orders the official draws up front, and where each is.
	accuracyOrder, uniqueOrder, equalOrder []int
	accuracyNext, uniqueNext, equalNext    int
	// same is the sample performance_issue_same repeats.
	same int

	// Grouped QSL: where each group of the loaded set starts, and (in
	// accuracy mode) the order of the groups.
	grouped                bool
	groupFirst, groupOrder []int
	groupNext              int

	q               *querySchedule
	timestamp, prev int64
}

func newGenerator(e *effective, mode Mode, set loadableSet, groups GroupedQSL) *generator {
	g := &generator{
		e: e, mode: mode, set: set, loaded: set.samples, groups: groups,
		isServer:    e.scenario == Server,
		isMulti:     e.scenario == MultiStream,
		isOffline:   e.scenario == Offline,
		sampleRNG:   rng.NewMT19937(e.sampleIndexRNGSeed),
		scheduleRNG: rng.NewMT19937(e.scheduleRNGSeed),
		equalIssue:  e.sampleConcatenatePermutation,
	}
	g.setLimits()
	g.drawOrders()
	g.padForEqualIssue()
	g.same = int(e.performanceIssueSameIndex)
	if n := len(g.loaded); n > 0 {
		g.same %= n
	}
	g.grouped = e.useGroupedQSL && groups != nil
	if g.grouped {
		g.findGroups()
	}
	return g
}

// setLimits sets the duration, minimum query count and samples per query
// to generate: twice the target duration (once in Server) in performance
// mode; one pass over the loaded samples, with no duration, in accuracy
// mode and with performance_issue_unique.
func (g *generator) setLimits() {
	e := g.e
	durationMultiplier := int64(2)
	if g.isServer {
		durationMultiplier = 1
	}
	g.genDuration = durationMultiplier * e.targetDuration.Milliseconds() * 1e6
	g.minQueries = e.minQueryCount
	g.perQuery = int(e.samplesPerQuery)
	if g.mode == AccuracyOnly && g.isOffline {
		g.perQuery = g.set.end
	}
	if g.perQuery <= 0 {
		g.perQuery = 1
	}
	if g.mode == AccuracyOnly || e.performanceIssueUnique {
		// Never exit early: one pass over the loaded samples.
		g.genDuration = 0
		g.minQueries = uint64(len(g.loaded) / g.perQuery)
	}
}

// drawOrders draws, in the official order, the accuracy permutation
// (accuracy mode only), the "unique" permutation and the equal-issue
// permutations: the official draws the last two whether it uses them or
// not.
func (g *generator) drawOrders() {
	stride := 1
	if g.isMulti {
		stride = g.perQuery
	}
	if g.mode == AccuracyOnly {
		g.accuracyOrder = strideShuffle(g.sampleRNG, g.set.end, stride)
	}
	g.uniqueOrder = strideShuffle(g.sampleRNG, g.set.end, stride)
	g.equalOrder = equalIssueOrder(g.sampleRNG, g.minQueries, len(g.loaded))
}

// padForEqualIssue rounds the Offline query size, or the minimum query
// count of the other scenarios, up to a multiple of the loaded set when
// sample_concatenate_permutation is on (performance mode).
func (g *generator) padForEqualIssue() {
	n := len(g.loaded)
	if g.mode == AccuracyOnly || !g.equalIssue || n == 0 {
		return
	}
	switch {
	case g.isOffline && g.perQuery%n != 0:
		g.perQuery += n - g.perQuery%n
	case !g.isOffline && g.minQueries%uint64(n) != 0:
		g.minQueries += uint64(n) - g.minQueries%uint64(n)
	}
}

// findGroups records where each group of the loaded set starts and, in
// accuracy mode, draws the order of the groups (after everything else, as
// the official does).
func (g *generator) findGroups() {
	for i := 0; i < len(g.loaded); {
		g.groupFirst = append(g.groupFirst, i)
		i += int(max(g.groups.GroupSize(g.groups.GroupOf(g.loaded[i])), 1))
	}
	if g.mode == AccuracyOnly {
		stride := 1
		if g.isMulti {
			stride = g.perQuery
		}
		g.groupOrder = strideShuffle(g.sampleRNG, len(g.groupFirst), stride)
	}
}

// distribution is the official sample distribution: the accuracy
// permutation in accuracy mode, else one uniform draw over the loaded set.
func (g *generator) distribution() int {
	if g.mode == AccuracyOnly {
		v := g.accuracyOrder[g.accuracyNext%len(g.accuracyOrder)]
		g.accuracyNext++
		return v
	}
	return rng.UniformInt(g.sampleRNG, 0, g.set.end-1)
}

// unique is the next position of the "unique" permutation
// (performance_issue_unique).
func (g *generator) unique() int {
	v := g.uniqueOrder[g.uniqueNext%len(g.uniqueOrder)]
	g.uniqueNext++
	return v
}

// period is the gap between queries at the target rate, in seconds.
func (g *generator) period() float64 { return 1 / g.e.targetQPS }

// constantGap is the official constant schedule gap, drawn (as the
// official does) from a uniform distribution over one value.
func (g *generator) constantGap() int64 {
	p := g.period()
	return int64(rng.UniformReal(g.scheduleRNG, p, p) * 1e9)
}

// gap is the time to the next query: an exponential draw in Server (a
// constant one with server_constant_gen), the period elsewhere.
func (g *generator) gap() int64 {
	switch {
	case g.isServer && g.e.requested.ServerConstantGen:
		return g.constantGap()
	case g.isServer:
		return int64(rng.Exponential(g.scheduleRNG, g.e.targetQPS) * 1e9)
	default:
		return int64(g.period() * 1e9)
	}
}

// addQuery generates one query of the scenario, schedules it and moves
// the clock on.
func (g *generator) addQuery() {
	switch {
	case g.isMulti:
		g.addMultiStreamSamples()
	case g.isOffline:
		g.addOfflineSamples()
	default:
		g.addSingleSamples()
	}
	q := g.q
	q.queries++
	g.prev = g.timestamp
	if g.isServer {
		q.scheduled = append(q.scheduled, g.timestamp)
	}
	g.timestamp += g.gap()
	g.bumpEqualIssue()
}

// bumpEqualIssue raises the minimum query count by a whole loaded set when
// equal issue has met it before the duration (not in Offline).
func (g *generator) bumpEqualIssue() {
	if g.equalIssue && uint64(g.q.queries) >= g.minQueries && g.prev < g.genDuration && !g.isOffline {
		g.minQueries += uint64(len(g.loaded))
	}
}

// addMultiStreamSamples appends perQuery contiguous samples from one start
// (the set's padding keeps them in range).
func (g *generator) addMultiStreamSamples() {
	var start int
	switch {
	case g.e.performanceIssueUnique:
		start = g.unique()
	case g.e.performanceIssueSame:
		start = g.same
	default:
		start = g.distribution()
	}
	n := len(g.loaded)
	for s := range g.perQuery {
		g.q.samples = append(g.q.samples, g.loaded[(start+s)%n])
	}
}

// addOfflineSamples appends the loaded set repeated (each repeat shuffled
// with sample_concatenate_permutation) and then its first samples, up to
// perQuery; or perQuery copies of one sample with performance_issue_same.
func (g *generator) addOfflineSamples() {
	q := g.q
	if g.e.performanceIssueSame {
		for range g.perQuery {
			q.samples = append(q.samples, g.loaded[g.same])
		}
		return
	}
	n := len(g.loaded)
	for range g.perQuery / n {
		chunk := len(q.samples)
		q.samples = append(q.samples, g.loaded...)
		if g.e.sampleConcatenatePermutation {
			rng.Shuffle(g.sampleRNG, q.samples[chunk:])
		}
	}
	q.samples = append(q.samples, g.loaded[:g.perQuery%n]...)
}

// addSingleSamples appends perQuery samples each drawn on its own: the
// unique permutation, the same sample, the equal-issue order or the
// sample distribution.
func (g *generator) addSingleSamples() {
	for range g.perQuery {
		var i int
		switch {
		case g.e.performanceIssueUnique:
			i = g.unique()
		case g.e.performanceIssueSame:
			i = g.same
		case g.equalIssue && len(g.equalOrder) > 0:
			i = g.equalOrder[g.equalNext%len(g.equalOrder)]
			g.equalNext++
		default:
			i = g.distribution()
		}
		g.q.samples = append(g.q.samples, g.loaded[i])
	}
}

// addGroup generates a whole group of a grouped QSL: one sample per query,
// evenly spaced.
func (g *generator) addGroup() {
	var k int
	if g.mode == AccuracyOnly {
		k = g.groupOrder[g.groupNext%len(g.groupOrder)]
		g.groupNext++
	} else {
		k = rng.UniformInt(g.sampleRNG, 0, len(g.groupFirst)-1)
	}
	first := g.groupFirst[k]
	size := int(g.groups.GroupSize(g.groups.GroupOf(g.loaded[first])))
	q := g.q
	for i := range size {
		q.samples = append(q.samples, g.loaded[(first+i)%len(g.loaded)])
		q.queries++
		if g.isServer {
			q.scheduled = append(q.scheduled, g.timestamp)
		}
		g.timestamp += g.constantGap()
	}
	// The grouped LoadGen draws one more gap here.
	g.prev = g.timestamp - g.constantGap()
	g.bumpEqualIssue()
}

// addOfflineRemainder adds, in Offline accuracy mode, a query for the
// samples a whole query left out.
func (g *generator) addOfflineRemainder() {
	rem := len(g.loaded) % g.perQuery
	if rem == 0 {
		return
	}
	for range rem {
		g.q.samples = append(g.q.samples, g.loaded[g.distribution()])
	}
	g.q.queries++
}
