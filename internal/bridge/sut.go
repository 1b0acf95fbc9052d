package bridge

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// SUT is a host.Backend seen as a loadgen.SUT. Create it with NewSUT, which
// sets itself as the backend's completion handler.
type SUT struct {
	b    host.Backend
	name string

	resp atomic.Pointer[loadgen.Responder]
	// recs and out are per-call scratch buffers, pooled so that concurrent
	// callers never share one and no call allocates once warm.
	recs sync.Pool
	out  sync.Pool

	issued    atomic.Int64
	completed atomic.Int64
	failed    atomic.Int64
	// rejected counts responses the LoadGen refused (unknown or duplicate
	// ids from the plugin).
	rejected atomic.Int64
	mu       sync.Mutex
	firstErr error
}

var (
	_ loadgen.SUT  = (*SUT)(nil)
	_ host.Handler = (*SUT)(nil)
)

// NewSUT wraps b, named name in the logs, and sets the SUT as b's handler.
func NewSUT(b host.Backend, name string) *SUT {
	s := &SUT{b: b, name: name}
	s.recs.New = func() any { return new([]abi.IssueRecord) }
	s.out.New = func() any { return new([]loadgen.QuerySampleResponse) }
	b.SetHandler(s)
	return s
}

// Name returns the SUT's name.
func (s *SUT) Name() string { return s.name }

// IssueQuery hands the query to the plugin. Samples whose response the
// LoadGen will log are issued with abi.FlagWantOutput; the others let the
// plugin skip copying its output.
func (s *SUT) IssueQuery(ctx context.Context, samples []loadgen.QuerySample, r *loadgen.Responder) error {
	s.resp.Store(r)
	p := s.recs.Get().(*[]abi.IssueRecord)
	recs := slices.Grow((*p)[:0], len(samples))
	for _, q := range samples {
		var f abi.IssueFlag
		if r.ResponseLogged(q.ID) {
			f = abi.FlagWantOutput
		}
		recs = append(recs, abi.IssueRecord{ID: q.ID, Index: q.Index, Flags: f})
	}
	err := s.b.Issue(ctx, recs)
	*p = recs
	s.recs.Put(p)
	if err != nil {
		return fmt.Errorf("issue %d samples: %w", len(samples), err)
	}
	s.issued.Add(int64(len(samples)))
	return nil
}

// FlushQueries forwards the LoadGen's FlushQueries to the plugin.
func (s *SUT) FlushQueries(ctx context.Context) error { return s.b.Flush(ctx) }

// Complete passes the plugin's completions to the LoadGen. A failed sample
// is completed with no data and its error, so that the run ends, the
// LoadGen logs the failure and marks the run INVALID, and it is counted:
// a run with failed samples is reported as failed by Err.
func (s *SUT) Complete(batch []host.Completion) {
	r := s.resp.Load()
	p := s.out.Get().(*[]loadgen.QuerySampleResponse)
	out := slices.Grow((*p)[:0], len(batch))
	for _, c := range batch {
		resp := loadgen.QuerySampleResponse{ID: c.ID, Data: c.Data, NTokens: c.NTokens}
		if c.Status != abi.OK {
			resp.Err = s.fail(c)
			resp.Data = nil
		}
		out = append(out, resp)
	}
	s.completed.Add(int64(len(batch)))
	if r != nil {
		if err := r.QuerySamplesComplete(out); err != nil {
			s.reject(err, len(out))
		}
	}
	clear(out)
	*p = out
	s.out.Put(p)
}

// FirstTokens passes first tokens to the LoadGen.
func (s *SUT) FirstTokens(batch []host.Completion) {
	r := s.resp.Load()
	if r == nil {
		return
	}
	p := s.out.Get().(*[]loadgen.QuerySampleResponse)
	out := (*p)[:0]
	for _, c := range batch {
		out = append(out, loadgen.QuerySampleResponse{ID: c.ID, Data: c.Data, NTokens: c.NTokens})
	}
	if err := r.FirstTokenComplete(out); err != nil {
		s.reject(err, len(out))
	}
	clear(out)
	*p = out
	s.out.Put(p)
}

// fail counts a failed sample, keeps the first error and returns its own.
func (s *SUT) fail(c host.Completion) error {
	err := c.Err()
	if s.failed.Add(1) == 1 {
		s.mu.Lock()
		s.firstErr = fmt.Errorf("sample %d: %w", c.ID, err)
		s.mu.Unlock()
	}
	return err
}

func (s *SUT) reject(err error, n int) {
	// A type assertion, not errors.As: this runs per completion batch and
	// must not allocate; LoadGen returns the *ResponseError itself.
	if re, ok := err.(*loadgen.ResponseError); ok {
		s.rejected.Add(int64(re.Rejected))
	} else {
		s.rejected.Add(int64(n))
	}
	s.mu.Lock()
	if s.firstErr == nil {
		s.firstErr = err
	}
	s.mu.Unlock()
}

// Stats are the SUT's counts.
type Stats struct {
	Issued, Completed, Failed, Rejected int64
}

// Stats returns the counts so far; safe to call during the run.
func (s *SUT) Stats() Stats {
	return Stats{Issued: s.issued.Load(), Completed: s.completed.Load(), Failed: s.failed.Load(), Rejected: s.rejected.Load()}
}

// Err returns nil when every sample completed successfully, else an error
// counting the failed samples and naming the first.
func (s *SUT) Err() error {
	st := s.Stats()
	if st.Failed == 0 && st.Rejected == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Errorf("%d samples failed and %d responses were rejected; first: %w", st.Failed, st.Rejected, s.firstErr)
}
