package sdk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
)

// SessionOutput receives what a [Session] produces. Its methods may be
// called from several goroutines at once, and must copy data before they
// return.
type SessionOutput interface {
	// Complete reports one finished sample: code is abi.OK and data its
	// output, or code says why it failed and data is the message.
	Complete(id uint64, code abi.Code, data []byte, nTokens int64)
	// FirstToken reports the first token of a sample (LLM backends).
	FirstToken(id uint64, data []byte)
	// Flushed answers a [Session.Flush].
	Flushed(code abi.Code, message string)
	// Violation reports a backend bug about sample id: a completion for an
	// id not in the Infer call, a second completion, or one after Infer
	// returned. The results of the run cannot be trusted.
	Violation(id uint64, err error)
}

// ErrSessionEnded is returned by Issue and Flush after End or Abort.
var ErrSessionEnded = errors.New("session ended")

// Session is the timed part of a run: it turns issued queries into Infer
// (or Submit) calls and their results into completions. Without
// [ServerConfig.Inline] it runs up to MaxInFlight calls at once on a fixed
// set of workers, each call at most MaxBatch samples; inline, it runs them
// one at a time on the goroutine that issues.
//
// With [Info.BatchTimeout] set (and not inline), the session batches
// across queries: issued samples wait in one queue, whatever query they
// came with, and a free worker takes up to MaxBatch of them at once when
// that many wait, or when the oldest has waited BatchTimeout, or at a
// Flush or the session's end. The queue holds any number of samples; only
// the calls in progress are bounded (MaxInFlight). Without BatchTimeout,
// each query is cut into calls of its own samples.
//
// Issue, Flush, End and Abort are called from one goroutine (a transport's
// receive loop).
type Session struct {
	srv      *Server
	out      SessionOutput
	ctx      context.Context
	cancel   context.CancelFunc
	maxBatch int
	inline   *worker // set in inline mode
	inJob    job     // the inline mode's reused job
	// submitter is the backend, when it completes asynchronously.
	submitter Submitter
	// batchTimeout > 0 batches across queries through pend.
	batchTimeout time.Duration
	// sized: the backend is a BatchSizer; batches are cut by units.
	sized bool
	timer *time.Timer

	mu        sync.Mutex
	cond      *sync.Cond
	queue     fifo[*job]
	pend      pending   // batching: samples waiting for a batch
	pendUnits int       // their units ([BatchSizer]), or count
	timerAt   time.Time // when the armed timer fires; zero: not armed
	free      []*job
	running   int  // Infer calls in progress
	flushing  bool // a flush runs: nothing else starts
	idlers    int  // goroutines waiting in idle
	ending    bool
	workers   sync.WaitGroup
	stopOnce  sync.Once
	stopped   chan struct{}
}

// job is one Infer call's samples, or a flush.
type job struct {
	recs  abi.IssueRecords // the samples, decoded by the worker
	flush bool
}

// worker runs jobs with its own reused query and completer.
type worker struct {
	s       *Session
	c       *call
	q       Query
	unknown []uint64
}

func newSession(ctx context.Context, srv *Server, out SessionOutput, inline bool) *Session {
	ctx, cancel := context.WithCancel(ctx)
	s := &Session{srv: srv, out: out, ctx: ctx, cancel: cancel, maxBatch: srv.info.MaxBatch, stopped: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	s.submitter, _ = srv.b.(Submitter)
	_, s.sized = srv.b.(BatchSizer)
	if inline {
		s.inline = s.newWorker()
		return s
	}
	if srv.info.BatchTimeout > 0 {
		s.batchTimeout = srv.info.BatchTimeout
		s.timer = time.AfterFunc(time.Hour, s.timerFired)
		s.timer.Stop()
	}
	for range max(1, srv.info.MaxInFlight) {
		w := s.newWorker()
		s.workers.Add(1)
		go w.loop()
	}
	return s
}

func (s *Session) newWorker() *worker {
	w := &worker{s: s, c: newCall(s.out, s.srv.info.Name)}
	if s.submitter != nil {
		// A Submit call waits for its completions or the session's end.
		context.AfterFunc(s.ctx, w.c.wake)
	}
	return w
}

// Issue queues one query: packed [abi.IssueRecord] values. It never waits
// for the backend, except inline, where it returns once every sample has
// completed.
func (s *Session) Issue(records []byte) error {
	recs, err := abi.ParseIssueRecords(records)
	if err != nil {
		return fmt.Errorf("issue: %w", err)
	}
	n := recs.Len()
	if n == 0 {
		return nil
	}
	if s.inline != nil {
		if s.isEnding() {
			return ErrSessionEnded
		}
		for off := 0; off < n; {
			k, _ := s.cut(recs[off*abi.IssueRecordSize:])
			// Inline, the call ends before Issue returns: no copy.
			s.inJob.recs = recs[off*abi.IssueRecordSize : (off+k)*abi.IssueRecordSize]
			s.inline.run(&s.inJob)
			off += k
		}
		return nil
	}
	if s.batchTimeout > 0 {
		return s.queueSamples(recs)
	}
	s.mu.Lock()
	if s.ending {
		s.mu.Unlock()
		return ErrSessionEnded
	}
	jobs := 0
	for off := 0; off < n; {
		k, _ := s.cut(recs[off*abi.IssueRecordSize:])
		j := s.newJob()
		j.recs = append(j.recs[:0], recs[off*abi.IssueRecordSize:(off+k)*abi.IssueRecordSize]...)
		j.flush = false
		s.queue.push(j)
		jobs++
		off += k
	}
	s.mu.Unlock()
	if jobs == 1 {
		s.cond.Signal()
	} else {
		s.cond.Broadcast()
	}
	return nil
}

// cut returns how many leading records of recs (at least one) make one
// call of at most MaxBatch samples, or units of a [BatchSizer], and
// their units.
func (s *Session) cut(recs abi.IssueRecords) (n, units int) {
	total := recs.Len()
	if !s.sized {
		if s.maxBatch > 0 {
			total = min(total, s.maxBatch)
		}
		return total, total
	}
	s.srv.samplesMu.RLock()
	defer s.srv.samplesMu.RUnlock()
	for n < total {
		u := s.unitsAt(recs.At(n).Index)
		if n > 0 && s.maxBatch > 0 && units+u > s.maxBatch {
			break
		}
		n, units = n+1, units+u
	}
	return n, units
}

// weigh returns the units of recs; samplesMu is taken when the backend
// is a BatchSizer.
func (s *Session) weigh(recs abi.IssueRecords) int {
	if !s.sized {
		return recs.Len()
	}
	s.srv.samplesMu.RLock()
	defer s.srv.samplesMu.RUnlock()
	u := 0
	for i := range recs.Len() {
		u += s.unitsAt(recs.At(i).Index)
	}
	return u
}

// unitsAt returns the units of the sample loaded at index (1 when it is
// not loaded: it fails alone anyway); samplesMu is held.
func (s *Session) unitsAt(index uint64) int {
	if e, ok := s.srv.samples.get(index); ok {
		return e.units
	}
	return 1
}

// Flush queues a flush behind the queries issued before it: once those
// have completed, the backend's Flush runs (when it is a [Flusher]) with
// no Infer call in progress, and the output's Flushed answers it. Queries
// issued after it start once it is done.
func (s *Session) Flush() error {
	if s.inline != nil {
		if s.isEnding() {
			return ErrSessionEnded
		}
		s.inline.flush()
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending {
		return ErrSessionEnded
	}
	// The batcher's samples go now, in full batches, before the flush.
	for s.pend.len() > 0 {
		s.queue.push(s.takeBatch())
	}
	j := s.newJob()
	j.flush, j.recs = true, j.recs[:0]
	s.queue.push(j)
	s.cond.Broadcast()
	return nil
}

// idle waits until no Infer or Flush call runs and nothing is queued.
func (s *Session) idle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idlers++
	for s.running > 0 || s.flushing || s.queue.len() > 0 || s.pend.len() > 0 {
		s.cond.Wait()
	}
	s.idlers--
}

func (s *Session) isEnding() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ending
}

// newJob takes a job from the free list; s.mu is held.
func (s *Session) newJob() *job {
	if k := len(s.free); k > 0 {
		j := s.free[k-1]
		s.free = s.free[:k-1]
		return j
	}
	return &job{}
}

// End completes every query issued and answers every flush, then stops
// the workers and releases the session. It is idempotent.
func (s *Session) End() { s.stop(false) }

// Abort cancels the context of the Infer calls in progress, drops the
// queries and flushes not started (their samples are never completed),
// waits for the calls in progress and releases the session. It is
// idempotent.
func (s *Session) Abort() { s.stop(true) }

// Done is closed once the session has ended.
func (s *Session) Done() <-chan struct{} { return s.stopped }

func (s *Session) stop(abort bool) {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		s.ending = true
		if abort {
			s.cancel()
			for s.queue.len() > 0 {
				s.queue.pop()
			}
			s.pend.clear()
			s.pendUnits = 0
		}
		s.mu.Unlock()
		s.cond.Broadcast()
		s.workers.Wait()
		if s.timer != nil {
			s.timer.Stop()
		}
		s.cancel()
		s.srv.sessionEnded(s)
		close(s.stopped)
	})
	<-s.stopped
}

// loop takes jobs until the session ends and the queue is empty.
func (w *worker) loop() {
	s := w.s
	defer s.workers.Done()
	for {
		s.mu.Lock()
		var j *job
		for j == nil {
			switch {
			case s.flushing:
			case s.queue.len() > 0 && s.queue.peek().flush:
				if s.running == 0 {
					j = s.queue.pop()
					s.flushing = true
				}
			case s.queue.len() > 0:
				j = s.queue.pop()
				s.running++
			case s.pend.len() > 0:
				if j = s.nextBatch(); j != nil {
					s.running++
				}
			case s.ending:
				s.mu.Unlock()
				return
			}
			if j == nil {
				s.cond.Wait()
			}
		}
		more := s.pend.len() > 0
		s.mu.Unlock()
		if more {
			s.cond.Signal() // another free worker looks at the rest
		}

		if j.flush {
			w.flush()
		} else {
			w.run(j)
		}

		s.mu.Lock()
		wake := j.flush
		if j.flush {
			s.flushing = false
		} else {
			s.running--
			// A flush, or a control call waiting for idle, waits for the
			// last call in progress.
			wake = s.running == 0 && (s.idlers > 0 || s.queue.len() > 0 && s.queue.peek().flush)
		}
		s.free = append(s.free, j)
		s.mu.Unlock()
		if wake {
			s.cond.Broadcast()
		}
	}
}

// run makes one Infer call of the job's samples. Samples whose index is
// not loaded fail at once and are left out of the call.
func (w *worker) run(j *job) {
	srv := w.s.srv
	w.q.Samples, w.unknown = w.q.Samples[:0], w.unknown[:0]
	n := j.recs.Len()
	w.q.Samples = slices.Grow(w.q.Samples, n)
	srv.samplesMu.RLock()
	for i := range n {
		r := j.recs.At(i)
		e, ok := srv.samples.get(r.Index)
		if !ok {
			w.unknown = append(w.unknown, r.ID, r.Index)
			continue
		}
		w.q.Samples = append(w.q.Samples, Sample{ID: r.ID, Index: r.Index, Data: e.data, Tensors: e.tensors,
			WantOutput: r.Flags&abi.FlagWantOutput != 0})
	}
	srv.samplesMu.RUnlock()
	for i := 0; i < len(w.unknown); i += 2 {
		w.s.out.Complete(w.unknown[i], abi.InvalidArgument,
			fmt.Appendf(nil, "sample index %d of sample id %d is not loaded", w.unknown[i+1], w.unknown[i]), 0)
	}
	if len(w.q.Samples) == 0 {
		return
	}
	w.c.start(w.q)
	method := "Infer"
	if w.s.submitter != nil {
		method = "Submit"
	}
	srv.observe(Call{Method: method, Query: &w.q})
	var err error
	if w.s.submitter != nil {
		err = w.submit()
	} else {
		err = w.infer()
	}
	w.c.finish(err)
	srv.observe(Call{Method: method, Query: &w.q, Done: true})
	clear(w.q.Samples) // drop references to sample data
}

// submit calls Submit, recovering a panic, and waits until every sample
// was answered or the session ends.
func (w *worker) submit() error {
	err := guard("Submit", func() error { return w.s.submitter.Submit(w.s.ctx, w.q, w.c) })
	if err != nil {
		w.s.srv.log.Error("Submit failed", "err", err, "samples", len(w.q.Samples))
		return err
	}
	return w.c.wait(w.s.ctx)
}

// infer calls Infer, recovering a panic.
func (w *worker) infer() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = w.s.srv.panicked("Infer", r, len(w.q.Samples))
		}
	}()
	return w.s.srv.b.Infer(w.s.ctx, w.q, w.c)
}

// flush runs the backend's Flush, if any, and answers.
func (w *worker) flush() {
	f, ok := w.s.srv.b.(Flusher)
	if !ok {
		w.s.out.Flushed(abi.OK, "")
		return
	}
	err := w.s.srv.guard("Flush", func() error { return f.Flush(w.s.ctx) })
	if err != nil {
		w.s.out.Flushed(CodeOf(err), err.Error())
		return
	}
	w.s.out.Flushed(abi.OK, "")
}

// queueSamples puts an issued query's samples in the batcher's queue and
// wakes a free worker when the queue was empty (it arms the deadline) or
// holds a full batch.
func (s *Session) queueSamples(recs abi.IssueRecords) error {
	u := s.weigh(recs)
	s.mu.Lock()
	if s.ending {
		s.mu.Unlock()
		return ErrSessionEnded
	}
	was := s.pendUnits
	s.pend.push(recs, time.Now())
	s.pendUnits += u
	now := s.pendUnits
	s.mu.Unlock()
	switch {
	case s.maxBatch > 0 && now >= 2*s.maxBatch && u >= s.maxBatch:
		s.cond.Broadcast()
	case was == 0, s.maxBatch > 0 && was < s.maxBatch && now >= s.maxBatch:
		s.cond.Signal()
	}
	return nil
}

// nextBatch takes the batcher's next batch when one is due: MaxBatch
// samples (or units) wait, the oldest has waited BatchTimeout, or the
// session is ending. Otherwise it arms the timer for when the oldest is
// due and returns nil. s.mu is held; the queue is not empty.
func (s *Session) nextBatch() *job {
	now := time.Now()
	due := s.pend.oldest().Add(s.batchTimeout)
	if !s.ending && (s.maxBatch == 0 || s.pendUnits < s.maxBatch) && now.Before(due) {
		if !s.timerAt.Equal(due) {
			s.timerAt = due
			s.timer.Reset(due.Sub(now))
		}
		return nil
	}
	return s.takeBatch()
}

// takeBatch takes one batch from the batcher's queue, which is not
// empty; s.mu is held.
func (s *Session) takeBatch() *job {
	n, u := s.cut(s.pend.view())
	j := s.newJob()
	j.flush, j.recs = false, s.pend.take(j.recs[:0], n)
	s.pendUnits -= u
	return j
}

// timerFired wakes the free workers: the oldest waiting sample is due.
func (s *Session) timerFired() {
	s.mu.Lock()
	s.timerAt = time.Time{}
	s.mu.Unlock()
	s.cond.Broadcast()
}
