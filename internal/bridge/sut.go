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
	aborted  atomic.Bool
	mu       sync.Mutex
	firstErr error
	// reportCtx bounds the calls the reports make (SetReportContext);
	// members is the last plugin members' report.
	reportCtx context.Context
	members   atomic.Pointer[host.PoolStats]
}

var (
	_ loadgen.SUT  = (*SUT)(nil)
	_ host.Handler = (*SUT)(nil)
)

// NewSUT wraps b, named name in the logs, and sets the SUT as b's handler.
func NewSUT(b host.Backend, name string) *SUT {
	s := &SUT{b: b, name: name, reportCtx: context.Background()}
	s.recs.New = func() any { return new([]abi.IssueRecord) }
	s.out.New = func() any { return new([]loadgen.QuerySampleResponse) }
	b.SetHandler(s)
	return s
}

// SetReportContext sets the context of the calls the LoadGen's reports
// make into the plugin (a plugin's members, asked after a performance
// pass); call it before the run.
func (s *SUT) SetReportContext(ctx context.Context) { s.reportCtx = ctx }

// Name returns the SUT's name.
func (s *SUT) Name() string { return s.name }

// issueChunk bounds the records one Backend.Issue call gets: a million-
// sample Offline query becomes 245 calls over one reused 96 KiB buffer
// rather than a 24 MiB one built (and faulted in) per run, and the plugin
// starts on the first part while the bridge builds the next.
const issueChunk = 4096

// IssueQuery hands the query to the plugin, in parts of at most
// issueChunk samples. Samples whose response the LoadGen will log are
// issued with abi.FlagWantOutput; the others let the plugin skip copying
// its output.
//
// An error means the plugin took none of the samples, as the LoadGen
// requires. When it refuses a later part, the earlier parts are in flight
// and the rest will never be: the bridge aborts the test (see
// loadgen.Responder.Abort) rather than failing them one by one.
func (s *SUT) IssueQuery(ctx context.Context, samples []loadgen.QuerySample, r *loadgen.Responder) error {
	s.resp.Store(r)
	p := s.recs.Get().(*[]abi.IssueRecord)
	defer s.recs.Put(p)
	for off := 0; off < len(samples); off += issueChunk {
		part := samples[off:min(off+issueChunk, len(samples))]
		recs := slices.Grow((*p)[:0], len(part))
		for _, q := range part {
			var f abi.IssueFlag
			if r.ResponseLogged(q.ID) {
				f = abi.FlagWantOutput
			}
			recs = append(recs, abi.IssueRecord{ID: q.ID, Index: q.Index, Flags: f})
		}
		*p = recs
		if err := s.b.Issue(ctx, recs); err != nil {
			if off == 0 {
				return fmt.Errorf("issue %d samples: %w", len(samples), err)
			}
			s.abort(r, fmt.Errorf("the plugin refused the rest of a query after %d of its %d samples: %w", off, len(samples), err))
			return nil
		}
		s.issued.Add(int64(len(part)))
	}
	return nil
}

// abort ends the test at the first failure: once a sample failed the run
// cannot be a result, and a plugin that died or fails every sample would
// otherwise fail millions of them one by one.
func (s *SUT) abort(r *loadgen.Responder, err error) {
	if r != nil && s.aborted.CompareAndSwap(false, true) {
		r.Abort(err)
	}
}

// FlushQueries forwards the LoadGen's FlushQueries to the plugin.
func (s *SUT) FlushQueries(ctx context.Context) error { return s.b.Flush(ctx) }

// Complete passes the plugin's completions to the LoadGen. A failed sample
// is completed with no data and its error, so that the LoadGen logs the
// failure and marks the run INVALID, it is counted (a run with failed
// samples is reported as failed by Err), and the first one aborts the
// test.
func (s *SUT) Complete(batch []host.Completion) {
	r := s.resp.Load()
	p := s.out.Get().(*[]loadgen.QuerySampleResponse)
	out := slices.Grow((*p)[:0], len(batch))
	failed := false
	for _, c := range batch {
		resp := loadgen.QuerySampleResponse{ID: c.ID, Data: c.Data, NTokens: c.NTokens}
		if c.Status != abi.OK {
			resp.Err = s.fail(c)
			resp.Data = nil
			failed = true
		}
		out = append(out, resp)
	}
	s.completed.Add(int64(len(batch)))
	if r != nil {
		if err := r.QuerySamplesComplete(out); err != nil {
			s.reject(err, len(out))
		}
	}
	if failed {
		s.abort(r, s.Err())
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
