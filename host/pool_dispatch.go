package host

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
)

// poolMember is one member and what the dispatcher knows of it. The
// counters are guarded by pool.mu.
type poolMember struct {
	pool    *Pool
	idx     int
	name    string
	b       Backend
	options map[string]string
	model   string

	depth    int   // most samples in flight
	inflight int   // samples at the member now
	busyNs   int64 // time with samples in flight
	lastNs   int64 // when inflight last changed
	answered int64 // completions ever (ok or failed): the rate's numerator
	total    int64 // samples completed successfully since Open
	// The window: since the last LoadSamples.
	completed, failed int64
	lat               []int64 // ns from arrival in the pool to completion
}

var _ Handler = (*poolMember)(nil)

// minRateSamples is how many completions a member needs before its
// measured rate replaces the prior.
const minRateSamples = 16

// account adds the time since the last change to the busy time; call it
// before changing inflight.
func (m *poolMember) account(now int64) {
	if m.inflight > 0 {
		m.busyNs += now - m.lastNs
	}
	m.lastNs = now
}

// rate is the member's samples per ns while busy, or prior before it
// completed enough to tell.
func (m *poolMember) rate(prior float64) float64 {
	if m.answered < minRateSamples || m.busyNs <= 0 {
		return prior
	}
	return float64(m.answered) / float64(m.busyNs)
}

func (m *poolMember) resetWindow() {
	m.completed, m.failed, m.lat = 0, 0, m.lat[:0]
}

// pick returns the member a sample should go to, or nil when none has
// room: the one whose queue would drain first at its measured rate. Ties
// (members not measured yet, all idle) go round robin. incoming is how
// many samples, this one included, are neither at a member nor waiting
// in the pool yet. p.mu is held.
//
// A member has room while it has fewer samples in flight than its depth
// and than its fair share of the work outstanding (at members, waiting,
// incoming): its rate's part of it. While much waits, the depth binds
// and every member stays busy; at the end of an Offline query the share
// binds, so a slow member never holds more than it finishes when the
// fast ones do.
func (p *Pool) pick(incoming int) *poolMember {
	var sum float64
	var known int
	outstanding := p.backlog.len() + incoming
	for _, m := range p.members {
		outstanding += m.inflight
		if r := m.rate(0); r > 0 {
			sum += r
			known++
		}
	}
	prior := 1.0
	if known > 0 {
		prior = sum / float64(known)
	}
	total := sum + prior*float64(len(p.members)-known)
	var best *poolMember
	var bestLoad, bestRate float64
	n := len(p.members)
	for k := range n {
		m := p.members[(p.rr+k)%n]
		load, r := float64(m.inflight+1), m.rate(prior)
		if m.inflight >= m.depth || load > math.Ceil(float64(outstanding)*r/total) {
			continue
		}
		// load/r < bestLoad/bestRate, without dividing.
		if best == nil || load*bestRate < bestLoad*r {
			best, bestLoad, bestRate = m, load, r
		}
	}
	if best != nil {
		p.rr = (best.idx + 1) % n
	}
	return best
}

// admit puts one sample at m; p.mu is held.
func (p *Pool) admit(m *poolMember, r abi.IssueRecord, arrived, now int64, batches [][]abi.IssueRecord) {
	m.account(now)
	m.inflight++
	p.arrived[r.ID] = arrived
	batches[m.idx] = append(batches[m.idx], r)
}

// Issue spreads the samples over the members with room and keeps the
// rest until some member makes room. It returns at once.
func (p *Pool) Issue(ctx context.Context, samples []abi.IssueRecord) error {
	if err := p.st.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(samples) == 0 {
		return nil
	}
	sp := p.scratch.Get().(*[][]abi.IssueRecord)
	defer p.scratch.Put(sp)
	now := p.now()
	p.mu.Lock()
	if p.closing {
		p.mu.Unlock()
		return ErrClosed
	}
	i := 0
	if p.backlog.len() == 0 {
		for ; i < len(samples); i++ {
			m := p.pick(len(samples) - i)
			if m == nil {
				break
			}
			p.admit(m, samples[i], now, now, *sp)
		}
	}
	for _, r := range samples[i:] {
		p.backlog.push(pending{rec: r, arrived: now})
	}
	p.mu.Unlock()
	p.send(ctx, *sp)
	return nil
}

// send issues each member its batch and empties the batches. A member
// that refuses its batch fails those samples.
func (p *Pool) send(ctx context.Context, batches [][]abi.IssueRecord) {
	for i, batch := range batches {
		if len(batch) == 0 {
			continue
		}
		m := p.members[i]
		if err := m.b.Issue(ctx, batch); err != nil {
			p.refused(ctx, m, batch, err)
		}
		batches[i] = batch[:0]
	}
}

// refused fails the samples a member would not take: with the member's
// failure when it failed (which then ends the pool), else with why.
func (p *Pool) refused(ctx context.Context, m *poolMember, batch []abi.IssueRecord, err error) {
	now := p.now()
	ids := make([]uint64, len(batch))
	p.mu.Lock()
	m.account(now)
	m.inflight -= len(batch)
	for i, r := range batch {
		ids[i] = r.ID
		delete(p.arrived, r.ID)
	}
	m.failed += int64(len(batch))
	p.mu.Unlock()
	code := abi.Aborted
	switch {
	case m.b.Err() != nil && !errors.Is(m.b.Err(), ErrClosed):
		p.memberFailed(m, m.b.Err())
		err = p.st.Err()
	case ctx.Err() != nil:
		code = abi.Canceled
	case !errors.Is(err, ErrClosed):
		p.memberFailed(m, fmt.Errorf("refused %d samples: %w", len(batch), err))
		err = p.st.Err()
	}
	deliverFailures(p.handler.Load().h, ids, code, fmt.Sprintf("pool member %q: %v", m.name, err))
}

// Complete records a member's completions and passes them on; a member
// with room again takes samples waiting in the pool.
func (m *poolMember) Complete(batch []Completion) {
	p := m.pool
	now := p.now()
	p.mu.Lock()
	m.account(now)
	m.inflight -= len(batch)
	m.answered += int64(len(batch))
	for _, c := range batch {
		if t, ok := p.arrived[c.ID]; ok {
			delete(p.arrived, c.ID)
			m.lat = append(m.lat, now-t)
		}
		if c.Status == abi.OK {
			m.completed++
			m.total++
		} else {
			m.failed++
		}
	}
	waiting := p.backlog.len() > 0
	p.mu.Unlock()
	if waiting {
		p.kick()
	}
	p.handler.Load().h.Complete(batch)
}

// FirstTokens passes a member's first tokens on.
func (m *poolMember) FirstTokens(batch []Completion) { m.pool.handler.Load().h.FirstTokens(batch) }

// kick wakes the dispatcher.
func (p *Pool) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// dispatch moves samples waiting in the pool to members with room,
// whenever a completion made some.
func (p *Pool) dispatch() {
	defer p.bg.Done()
	sp := p.scratch.Get().(*[][]abi.IssueRecord)
	defer p.scratch.Put(sp)
	for {
		select {
		case <-p.stop:
			return
		case <-p.wake:
		}
		for p.moveBacklog(*sp) {
			p.send(p.ctx, *sp)
		}
	}
}

// moveBacklog assigns waiting samples to members with room, into
// batches; false when it moved none.
func (p *Pool) moveBacklog(batches [][]abi.IssueRecord) bool {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	moved := false
	for p.backlog.len() > 0 && p.st.Err() == nil {
		m := p.pick(0)
		if m == nil {
			break
		}
		w, _ := p.backlog.pop()
		p.admit(m, w.rec, w.arrived, now, batches)
		moved = true
	}
	if p.backlog.len() == 0 {
		p.noteDrained()
	}
	return moved
}

// noteDrained closes drained once Close waits and nothing waits in the
// pool; p.mu is held.
func (p *Pool) noteDrained() {
	if p.closing && p.backlog.len() == 0 {
		select {
		case <-p.drained:
		default:
			close(p.drained)
		}
	}
}

// watch ends the pool when m fails.
func (p *Pool) watch(m *poolMember) {
	defer p.bg.Done()
	select {
	case <-p.stop:
	case <-m.b.Done():
		if err := m.b.Err(); err != nil && !errors.Is(err, ErrClosed) {
			p.memberFailed(m, err)
		}
	}
}

// memberFailed ends the pool with m's failure (the first failure wins):
// the samples waiting in the pool fail with it; those at the other
// members finish there.
func (p *Pool) memberFailed(m *poolMember, err error) {
	p.fatal(&PoolMemberError{Pool: p.name, Member: m.name, Index: m.idx, Err: err})
}

// fatal ends the pool with err and fails every sample waiting in it.
func (p *Pool) fatal(err error) {
	if !p.st.fail(err) {
		return
	}
	p.log.Error("pool failed", "pool", p.name, "err", err)
	p.mu.Lock()
	var ids []uint64
	for {
		w, ok := p.backlog.pop()
		if !ok {
			break
		}
		ids = append(ids, w.rec.ID)
	}
	p.noteDrained()
	p.mu.Unlock()
	deliverFailures(p.handler.Load().h, ids, abi.Aborted, err.Error())
}

// Close waits (bounded by the close timeout) for the samples waiting in
// the pool to reach a member, then closes every member at once; each
// waits for its own samples in flight. Errors name their members.
func (p *Pool) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.close() })
	return p.closeErr
}

func (p *Pool) close() error {
	p.mu.Lock()
	p.closing = true
	p.noteDrained()
	p.mu.Unlock()
	timer := time.NewTimer(p.cfg.CloseTimeout)
	select {
	case <-p.drained:
	case <-p.st.Done():
	case <-timer.C:
		p.fatal(&PluginError{Plugin: p.name, Op: "close", Err: fmt.Errorf("%w: samples still waiting in the pool after %v", ErrHang, p.cfg.CloseTimeout)})
	}
	timer.Stop()
	close(p.stop)
	p.bg.Wait()
	errs := make([]error, len(p.members))
	var wg sync.WaitGroup
	for i, m := range p.members {
		wg.Go(func() {
			if err := m.b.Close(); err != nil {
				errs[i] = &PoolMemberError{Pool: p.name, Member: m.name, Index: m.idx, Err: err}
			}
		})
	}
	wg.Wait()
	p.st.fail(ErrClosed)
	return errors.Join(errs...)
}

// kill stops the pool now: every member is killed.
func (p *Pool) kill(cause error) {
	p.fatal(stopError(p.name, "stop", cause))
	for _, m := range p.members {
		Kill(m.b, cause)
	}
}
