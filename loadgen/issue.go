package loadgen

import (
	"context"
	"runtime"
	"strconv"
	"time"
)

// issueStats is what the issuing loop reports.
type issueStats struct {
	queriesIssued   int
	samplesIssued   int
	ranOutOfQueries bool
	issueErr        error
	canceled        bool
	startWall       time.Time
}

// issue runs the official IssueQueriesInternal for one issuing goroutine:
// wait for the scenario's issue time, issue, and stop when the minimum
// query count and duration are met (or a maximum, or too many queries are
// outstanding in Server).
func (p *phase) issue(ctx context.Context) issueStats {
	st := issueStats{ranOutOfQueries: p.eff.scenario != Server}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	if p.eff.scenario == Server && !p.r.timerWait {
		defer holdIssuerThread()()
	}
	p.begin(timer, &st)
	for k := 0; k < p.q.queries; k++ {
		now, ok := p.waitTurn(ctx, timer, k)
		if !ok {
			st.canceled = true
			break
		}
		first := k
		k = p.coalesce(k, now)
		if !p.issueQueries(ctx, &st, first, k) {
			break
		}
		if p.mode == AccuracyOnly {
			continue
		}
		if p.stopAfter(&st, now) {
			break
		}
		if canceled(ctx) {
			st.canceled = true
			break
		}
	}
	p.logEnd(ctx, &st)
	return st
}

// begin calibrates the Server spin if needed, starts the phase's clock
// and opens the phase to responses.
func (p *phase) begin(timer *time.Timer, st *issueStats) {
	if p.eff.scenario == Server && p.r.spin == spinAuto {
		if p.r.timerWait {
			p.r.spin = calibrateSpin(timer)
		} else {
			p.r.spin = calibrateNapSpin()
		}
	}
	p.start = time.Now()
	st.startWall = p.start
	p.r.resp.phase.Store(p)
}

// waitTurn waits until query k may be issued (the previous query done in
// SingleStream and MultiStream, its scheduled time in Server, at once in
// Offline), records its scheduled and issue times and returns the issue
// time; false means the context was canceled.
func (p *phase) waitTurn(ctx context.Context, timer *time.Timer, k int) (int64, bool) {
	ok := true
	var now int64
	switch p.eff.scenario {
	case SingleStream, MultiStream:
		if k > 0 {
			ok = p.waitQuery(ctx, k-1)
		}
		now = p.now()
		p.schedAt[k] = now
	case Server:
		ok = p.waitUntil(ctx, timer, p.q.scheduled[k])
		now = p.now()
		p.schedAt[k] = p.q.scheduled[k]
	case Offline:
		now = p.now()
	}
	if ok {
		p.issuedAt[k] = now
	}
	return now, ok
}

// coalesce returns the last query to issue with query k: with Server
// coalescing, every following query whose scheduled time has passed at
// now, each recorded as issued now.
func (p *phase) coalesce(k int, now int64) int {
	if p.eff.scenario != Server || !p.eff.requested.ServerCoalesceQueries {
		return k
	}
	for k+1 < p.q.queries && now >= p.q.scheduled[k+1] {
		k++
		p.schedAt[k], p.issuedAt[k] = p.q.scheduled[k], now
	}
	return k
}

// issueQueries hands queries first to last to the SUT as one IssueQuery
// and counts them; false means the SUT refused them.
func (p *phase) issueQueries(ctx context.Context, st *issueStats, first, last int) bool {
	lo, _ := p.q.span(first)
	_, hi := p.q.span(last)
	n := last - first + 1
	p.watermark.Store(int64(hi))
	p.r.issuedQueries.Add(int64(n))
	st.queriesIssued += n
	st.samplesIssued = hi
	if err := p.r.sut.IssueQuery(ctx, p.samples[lo:hi:hi], &p.r.resp); err != nil {
		// The SUT refused the query: none of its samples is in flight.
		st.issueErr = err
		st.ranOutOfQueries = false
		st.queriesIssued -= n
		st.samplesIssued = lo
		return false
	}
	return true
}

// stopAfter applies the official end conditions of a performance pass
// after a query issued at now, logging the reason it stops.
func (p *phase) stopAfter(st *issueStats, now int64) bool {
	const file = "loadgen/issue.go"
	e := p.eff
	issued := uint64(st.queriesIssued)
	duration := time.Duration(now)
	if e.scenario == Server {
		if e.maxAsyncQueries != 0 {
			outstanding := issued - uint64(p.queryDone.Load())
			if outstanding > e.maxAsyncQueries {
				p.r.logs.detail("error_runtime", vString("IssueQueryThread 0 Ending early: Too many outstanding queries. issued "+
					strconv.FormatUint(issued, 10)+" outstanding "+strconv.FormatUint(outstanding, 10)), levelError, file)
				return true
			}
		}
	} else if issued >= e.minQueryCount && duration >= e.targetDuration {
		p.r.logs.detail("generic_message", vString("Ending naturally: Minimum query count and test duration met."), levelInfo, file)
		st.ranOutOfQueries = false
		return true
	}
	if e.maxQueryCount != 0 && issued >= e.maxQueryCount {
		p.r.logs.detail("error_runtime", vString("IssueQueryThread 0 Ending early: Max query count reached. query_count "+
			strconv.FormatUint(issued, 10)), levelError, file)
		st.ranOutOfQueries = false
		return true
	}
	if e.maxDuration != 0 && duration > e.maxDuration {
		p.r.logs.detail("error_runtime", vString("IssueQueryThread 0 Ending early: Max test duration reached. duration_ns "+
			strconv.FormatInt(int64(duration), 10)), levelError, file)
		st.ranOutOfQueries = false
		return true
	}
	return false
}

// logEnd logs why issuing ended early, when it was canceled or the SUT
// refused a query.
func (p *phase) logEnd(ctx context.Context, st *issueStats) {
	const file = "loadgen/issue.go"
	if st.canceled {
		st.ranOutOfQueries = false
		if abortCause(ctx) == nil { // an abort gets its own entry (logAbort)
			p.r.logs.detail("error_runtime", vString("Ending early: the run was canceled: "+context.Cause(ctx).Error()), levelError, file)
		}
	}
	if st.issueErr != nil {
		p.r.logs.detail("error_runtime", vString("Ending early: IssueQuery failed: "+st.issueErr.Error()), levelError, file)
	}
}

// finalNap bounds the last kernel sleep before a Server query, the one
// that keeps its P (see nap); the wait before it sleeps until the query
// is finalNap away, in naps of at most maxNap so that a canceled context
// is noticed.
const (
	finalNap = time.Millisecond
	maxNap   = 10 * time.Millisecond
)

// waitUntil sleeps until target (ns from start), then spins the last
// stretch, which sleeping alone overshoots; false means the context was
// canceled. It sleeps in the kernel (nap), as the official issue thread
// does, unless timerWait asks for Go timers: those fire up to a
// millisecond late when the process is otherwise idle (the runtime's
// poller sleeps in whole milliseconds), and spinning that long makes a
// loaded machine run the issuer late, where a thread asleep in the kernel
// is woken on time.
func (p *phase) waitUntil(ctx context.Context, timer *time.Timer, target int64) bool {
	spin := p.r.spin
	for {
		d := time.Duration(target - p.now())
		if d <= 0 {
			return true
		}
		if d <= spin {
			p.spinUntil(target)
			return true
		}
		if !p.r.timerWait {
			if canceled(ctx) {
				return false
			}
			if sleep := d - spin; sleep <= finalNap {
				nap(sleep, true)
			} else {
				nap(min(sleep-finalNap, maxNap), false)
			}
			continue
		}
		timer.Reset(d - spin)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return false
		}
	}
}

// spinUntil spins until target. On Go timers, where the spin can be long,
// it yields while spinning so that a SUT completing in this process keeps
// its share of the CPU; after a nap the spin is a few microseconds, and
// yielding would queue the issuer behind every runnable goroutine.
func (p *phase) spinUntil(target int64) {
	yield := p.r.timerWait
	for p.now() < target {
		if yield {
			runtime.Gosched()
		}
	}
}

// waitQuery blocks until query k has completed.
func (p *phase) waitQuery(ctx context.Context, k int) bool {
	for i := 0; p.remaining[k].Load() > 0; i++ {
		if p.r.spin > 0 && i < 200 {
			continue // a short spin saves a park and wake-up
		}
		select {
		case <-p.wake:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

func canceled(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}
