package loadgen

import "slices"

// perfResult is the official PerformanceResult: what one phase measured.
type perfResult struct {
	sampleLatencies []int64 // ns, in sample order
	queryLatencies  []int64 // ns, MultiStream only
	queriesIssued   uint64
	samplesIssued   int
	incomplete      int
	failed          int // samples the SUT completed with an error

	maxLatency          float64 // seconds
	finalQueryScheduled float64 // seconds from start
	finalQueryIssued    float64 // seconds from start
	finalQueryAllDone   float64 // seconds from start
	maxCompletion       int64   // ns from start

	firstToken      []int64 // ns
	timePerToken    []int64 // ns
	tokensPerSample []int64

	issueDelays []int64 // ns, Server only: issue time minus scheduled time

	// groupLatencies are the summed sample latencies of each whole group
	// issued (use_grouped_qsl), in issue order.
	groupLatencies []int64
}

// collect reads the phase's arrays once every response is in (or the
// phase is closed) and turns them into latencies.
func (p *phase) collect(st issueStats) perfResult {
	pr := perfResult{
		queriesIssued: uint64(st.queriesIssued),
		samplesIssued: st.samplesIssued,
	}
	n := st.samplesIssued
	pr.sampleLatencies = make([]int64, 0, n)
	var maxLatency int64
	for i := range n {
		if p.state[i].Load()&stateDone == 0 {
			pr.incomplete++
			continue
		}
		k := p.q.queryOf(i)
		lat := p.doneAt[i] - p.schedAt[k]
		pr.sampleLatencies = append(pr.sampleLatencies, lat)
		maxLatency = max(maxLatency, lat)
		pr.maxCompletion = max(pr.maxCompletion, p.doneAt[i])
		if !p.tokens {
			continue
		}
		var first int64
		if p.state[i].Load()&stateFirstToken != 0 {
			first = p.firstAt[i] - p.schedAt[k]
			pr.firstToken = append(pr.firstToken, first)
		}
		pr.timePerToken = append(pr.timePerToken, (lat-first)/(p.nTokens[i]-1))
		pr.tokensPerSample = append(pr.tokensPerSample, p.nTokens[i])
	}
	pr.maxLatency = float64(maxLatency) / 1e9
	if p.eff.scenario == MultiStream {
		for k := range st.queriesIssued {
			if p.remaining[k].Load() == 0 {
				pr.queryLatencies = append(pr.queryLatencies, p.allDoneAt[k]-p.schedAt[k])
			}
		}
	}
	if p.eff.scenario == Server {
		pr.issueDelays = make([]int64, st.queriesIssued)
		for k := range st.queriesIssued {
			pr.issueDelays[k] = p.issuedAt[k] - p.schedAt[k]
		}
	}
	if p.eff.useGroupedQSL && p.r.groups != nil {
		pr.groupLatencies = p.groupLatencies(st.samplesIssued)
	}
	if st.queriesIssued > 0 {
		last := st.queriesIssued - 1
		if p.q.scheduled != nil {
			pr.finalQueryScheduled = float64(p.q.scheduled[last]) / 1e9
		}
		pr.finalQueryIssued = float64(p.issuedAt[last]) / 1e9
		done := pr.maxCompletion
		if p.remaining[last].Load() == 0 {
			done = p.allDoneAt[last]
		}
		pr.finalQueryAllDone = float64(done) / 1e9
	}
	return pr
}

// groupLatencies is the official ProcessGroupLatencies walk: from the first
// sample, each run of samples that starts a group and covers it whole adds
// the sum of their latencies; the walk stops at the first sample that does
// not start a group (or at an incomplete group).
func (p *phase) groupLatencies(issued int) []int64 {
	g := p.r.groups
	n := g.NumberOfGroups()
	starts := make([]uint64, n)
	var acc uint64
	for i := range starts {
		starts[i] = acc
		acc += g.GroupSize(uint64(i))
	}
	var out []int64
	for i := 0; i < issued; {
		s := p.samples[i].Index
		k, found := slices.BinarySearch(starts, s)
		if !found {
			break
		}
		size := int(g.GroupSize(uint64(k)))
		if size == 0 || i+size > issued {
			break
		}
		var sum int64
		complete := true
		for j := i; j < i+size; j++ {
			if p.state[j].Load()&stateDone == 0 {
				complete = false
				break
			}
			sum += p.doneAt[j] - p.schedAt[p.q.queryOf(j)]
		}
		if !complete {
			break
		}
		out = append(out, sum)
		i += size
	}
	return out
}
