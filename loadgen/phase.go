package loadgen

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Sample state bits.
const (
	stateDone uint32 = 1 << iota
	stateFirstToken
)

// phase is one pass of issuing queries: the official IssueQueries. It
// holds the run as flat arrays indexed by sample and by query, written by
// the issuing goroutine and by the completing goroutines without locks.
type phase struct {
	r    *run
	eff  *effective
	mode Mode
	q    querySchedule

	// base is the sequence id of the first sample, queryBase of the first
	// query; both keep counting across the phases of a run.
	base      uint64
	queryBase uint64

	samples []QuerySample
	state   []atomic.Uint32
	doneAt  []int64 // completion, ns from start

	schedAt   []int64 // scheduled time, ns from start
	issuedAt  []int64 // issue time, ns from start
	allDoneAt []int64 // completion of the last sample, ns from start
	remaining []atomic.Int32

	logAll   bool
	logFlags []bool

	tokens         bool
	needFirstToken bool
	firstAt        []int64
	nTokens        []int64
	tokenMu        sync.Mutex
	tokenData      map[int][]byte

	start     time.Time
	watermark atomic.Int64 // samples issued so far (a prefix)
	completed atomic.Int64
	queryDone atomic.Int64
	expected  atomic.Int64
	inflight  atomic.Int64 // Responder calls in progress
	closing   atomic.Bool  // close is waiting for inflight to reach 0
	idle      chan struct{}
	rejected  atomic.Int64
	failed    atomic.Int64 // samples the SUT completed with an error
	wake      chan struct{}
	finished  chan struct{}
}

func newPhase(r *run, e *effective, mode Mode, q querySchedule, base, queryBase uint64) *phase {
	n := len(q.samples)
	p := &phase{
		r: r, eff: e, mode: mode, q: q, base: base, queryBase: queryBase,
		samples:   make([]QuerySample, n),
		state:     make([]atomic.Uint32, n),
		doneAt:    make([]int64, n),
		schedAt:   make([]int64, q.queries),
		issuedAt:  make([]int64, q.queries),
		allDoneAt: make([]int64, q.queries),
		remaining: make([]atomic.Int32, q.queries),
		logAll:    mode == AccuracyOnly,
		tokens:    e.useTokenLatencies,
		wake:      make(chan struct{}, 1),
		finished:  make(chan struct{}, 1),
		idle:      make(chan struct{}, 1),
	}
	p.needFirstToken = p.tokens && e.scenario != Offline
	for i, idx := range q.samples {
		p.samples[i] = QuerySample{ID: base + uint64(i), Index: idx}
	}
	for k := range q.queries {
		lo, hi := q.span(k)
		p.remaining[k].Store(int32(hi - lo))
	}
	if p.tokens {
		p.firstAt = make([]int64, n)
		p.nTokens = make([]int64, n)
		p.tokenData = make(map[int][]byte)
	}
	p.expected.Store(int64(n) + 1) // unreachable until issuing ends
	return p
}

func (p *phase) now() int64 { return int64(time.Since(p.start)) }

// enter and leave bracket a Responder call so that closing the phase can
// wait for calls in progress: the last call to leave while close waits
// wakes it.
func (p *phase) enter() { p.inflight.Add(1) }
func (p *phase) leave() {
	if p.inflight.Add(-1) == 0 && p.closing.Load() {
		select {
		case p.idle <- struct{}{}:
		default:
		}
	}
}

// index maps a response id to a sample of this phase, or explains why it
// cannot.
func (p *phase) index(id uint64) (int, string) {
	if id < p.base {
		if id >= p.r.firstSampleID {
			return 0, "Received completion for an old sample. Min expected id: " +
				strconv.FormatUint(p.base, 10) + " Actual id: " + strconv.FormatUint(id, 10)
		}
		return 0, "Received completion for an unknown sample. id: " + strconv.FormatUint(id, 10)
	}
	i := id - p.base
	if i >= uint64(len(p.samples)) {
		return 0, "Received completion for an unknown sample. id: " + strconv.FormatUint(id, 10)
	}
	if int64(i) >= p.watermark.Load() {
		return 0, "Received completion for a sample not issued yet. id: " + strconv.FormatUint(id, 10)
	}
	return int(i), ""
}

// reject logs one invalid response as a runtime error and counts it.
func (p *phase) reject(msg string) {
	p.rejected.Add(1)
	if !p.r.errBudget.take() {
		return
	}
	p.r.logs.detail("error_runtime", vString(msg), levelError, "loadgen/responder.go")
}

// failSample logs a sample the SUT reported as failed as a runtime error
// and counts it.
func (p *phase) failSample(id uint64, err error) {
	p.failed.Add(1)
	if !p.r.errBudget.take() {
		return
	}
	p.r.logs.detail("error_runtime", vString("The SUT failed sample id: "+strconv.FormatUint(id, 10)+": "+err.Error()),
		levelError, "loadgen/responder.go")
}

// complete is QuerySamplesComplete for this phase: the hot path.
func (p *phase) complete(rs []QuerySampleResponse) error {
	p.enter()
	defer p.leave()
	if !p.admit(len(rs)) {
		return ErrRunEnded
	}
	now := p.now()
	var rej rejections
	accepted := 0
	for k := range rs {
		resp := &rs[k]
		i, msg := p.index(resp.ID)
		if msg == "" && !p.markDone(i) {
			msg = "Attempted to complete a sample twice."
		}
		if msg != "" {
			rej.add(p, msg)
			continue
		}
		p.doneAt[i] = now
		if resp.Err != nil {
			p.failSample(resp.ID, resp.Err)
		}
		if p.tokens {
			p.recordTokens(i, resp)
		}
		if p.logAll || p.logFlags != nil && p.logFlags[i] {
			p.logAccuracy(i, resp)
		}
		k := p.q.queryOf(i)
		if p.remaining[k].Add(-1) == 0 {
			p.allDoneAt[k] = now
			p.queryDone.Add(1)
			select {
			case p.wake <- struct{}{}:
			default:
			}
		}
		accepted++
	}
	if accepted > 0 {
		if p.completed.Add(int64(accepted)) >= p.expected.Load() {
			p.signalFinished()
		}
	}
	return rej.err()
}

// admit reports whether a Responder call may proceed: the phase is still
// the run's current one. It must be called between enter and leave.
func (p *phase) admit(n int) bool {
	if p.r.resp.phase.Load() == p {
		return true
	}
	p.r.resp.late.Add(int64(n))
	return false
}

// rejections collects the invalid responses of one Responder call.
type rejections struct {
	n     int
	first string
}

func (r *rejections) add(p *phase, msg string) {
	if r.n == 0 {
		r.first = msg
	}
	r.n++
	p.reject(msg)
}

func (r *rejections) err() error {
	if r.n == 0 {
		return nil
	}
	return &ResponseError{Rejected: r.n, First: r.first}
}

func (p *phase) signalFinished() {
	select {
	case p.finished <- struct{}{}:
	default:
	}
}

// markDone sets the done bit of sample i, reporting false if it was set.
func (p *phase) markDone(i int) bool {
	st := &p.state[i]
	for {
		old := st.Load()
		if old&stateDone != 0 {
			return false
		}
		if st.CompareAndSwap(old, old|stateDone) {
			return true
		}
	}
}

// recordTokens checks and keeps the token count of a completed sample, as
// the official RecordSampleCompletion does with token latencies on.
func (p *phase) recordTokens(i int, resp *QuerySampleResponse) {
	if p.needFirstToken && p.state[i].Load()&stateFirstToken == 0 {
		p.reject("Attempted to record a sample latency before it's first token latency")
	}
	n := resp.NTokens
	switch {
	case n == 0:
		p.reject("n_tokens argument missing or attempted to record 0 as number of tokens")
	case n < 0:
		p.reject("Attempted to record a negative number of tokens")
		n = 0
	case n == 1:
		p.reject("Number of tokens need to be greater than 1")
		n = 0
	}
	p.nTokens[i] = n
}

func (p *phase) logAccuracy(i int, resp *QuerySampleResponse) {
	var tokenData []byte
	if p.needFirstToken {
		p.tokenMu.Lock()
		tokenData = p.tokenData[i]
		p.tokenMu.Unlock()
	}
	p.r.logs.accuracy(p.base+uint64(i), p.samples[i].Index, resp.Data, p.tokens, tokenData, p.needFirstToken, resp.NTokens)
}

// firstTokens is FirstTokenComplete for this phase.
func (p *phase) firstTokens(rs []QuerySampleResponse) error {
	p.enter()
	defer p.leave()
	if !p.admit(len(rs)) {
		return ErrRunEnded
	}
	now := p.now()
	var rej rejections
	for k := range rs {
		resp := &rs[k]
		i, msg := p.index(resp.ID)
		if msg == "" {
			msg = p.markFirstToken(i)
		}
		if msg != "" {
			rej.add(p, msg)
			continue
		}
		if p.firstAt != nil {
			p.firstAt[i] = now
		}
		if p.logAll || p.logFlags != nil && p.logFlags[i] {
			p.tokenMu.Lock()
			if p.tokenData != nil {
				p.tokenData[i] = append([]byte(nil), resp.Data...)
			}
			p.tokenMu.Unlock()
		}
	}
	return rej.err()
}

func (p *phase) markFirstToken(i int) string {
	st := &p.state[i]
	for {
		old := st.Load()
		switch {
		case old&stateDone != 0:
			return "Attempted to record token latency after sample was completed"
		case old&stateFirstToken != 0:
			return "Attempted to complete a sample twice."
		}
		if st.CompareAndSwap(old, old|stateFirstToken) {
			return ""
		}
	}
}

// logged reports whether the response to id goes to the accuracy log.
func (p *phase) logged(id uint64) bool {
	if id < p.base || id-p.base >= uint64(len(p.samples)) {
		return false
	}
	return p.logAll || p.logFlags != nil && p.logFlags[id-p.base]
}

// close stops accepting responses and waits for the calls in progress, so
// that the arrays can be read without racing with late completions.
//
// It blocks on a channel rather than polling, so that under
// testing/synctest the fake clock does not move while it waits (and the
// logs do not depend on whether a call was still in progress).
func (p *phase) close() {
	p.r.resp.phase.CompareAndSwap(p, nil)
	p.closing.Store(true)
	for p.inflight.Load() != 0 {
		<-p.idle
	}
}

// drain waits until every issued sample has completed, the context is
// canceled (then it waits up to grace more), and closes the phase.
func (p *phase) drain(ctx context.Context, samplesIssued int, grace time.Duration) {
	p.expected.Store(int64(samplesIssued))
	if p.completed.Load() >= int64(samplesIssued) {
		p.close()
		return
	}
	done := ctx.Done()
	var deadline <-chan time.Time
	for p.completed.Load() < int64(samplesIssued) {
		select {
		case <-p.finished:
		case <-done:
			done = nil
			if abortCause(ctx) != nil {
				// The SUT said the samples in flight will not come.
				p.close()
				return
			}
			t := time.NewTimer(grace)
			defer t.Stop()
			deadline = t.C
		case <-deadline:
			p.close()
			return
		}
	}
	p.close()
}
