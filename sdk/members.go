package sdk

import (
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// MemberReporter is a backend that drives a system of members the host
// cannot see, such as several serving engines' endpoints (ABI v1.4): the
// host asks after each performance pass what each member did, and shows
// it as it shows a pool's members (console, detail log, report). Members
// may be called while Infer calls run: it must be safe for concurrent
// use.
type MemberReporter interface {
	// Members returns what each member did since samples were last
	// loaded (or since the warm-up, when later).
	Members() []MemberStats
}

// MemberStats is what one member did.
type MemberStats struct {
	// Name identifies the member, e.g. an endpoint's URL.
	Name string
	// Completed and Failed count its requests.
	Completed, Failed int64
	// Min, Mean, P50, P90, P99 and Max are the completed requests'
	// latencies (nearest rank), as Latency says they are measured.
	Min, Mean, P50, P90, P99, Max time.Duration
	// Latency says what the latencies measure, e.g. "from sending the
	// request to the reply's last byte".
	Latency string
	// FirstError is the first failure's message; empty when none.
	FirstError string
}

func (m MemberStats) proto() *backendv1.MemberStats {
	return &backendv1.MemberStats{Name: m.Name, Completed: m.Completed, Failed: m.Failed,
		LatencyMinNs: int64(m.Min), LatencyMeanNs: int64(m.Mean), LatencyP50Ns: int64(m.P50), LatencyP90Ns: int64(m.P90),
		LatencyP99Ns: int64(m.P99), LatencyMaxNs: int64(m.Max), Latency: m.Latency, FirstError: m.FirstError}
}

// Members answers the host's Members call: what a [MemberReporter]
// backend's members did. It does not wait for Infer calls in progress.
func (s *Server) Members() *backendv1.MembersResponse {
	s.mu.Lock()
	err := s.ready("Members", true)
	s.mu.Unlock()
	if err != nil {
		return &backendv1.MembersResponse{Status: status(err)}
	}
	r, ok := s.b.(MemberReporter)
	if !ok {
		return &backendv1.MembersResponse{Status: status(Errorf(abi.FailedPrecondition, "the backend reports no members"))}
	}
	var ms []MemberStats
	if err := s.guard("Members", func() error { ms = r.Members(); return nil }); err != nil {
		return &backendv1.MembersResponse{Status: status(err)}
	}
	resp := &backendv1.MembersResponse{Status: &backendv1.Status{}}
	for _, m := range ms {
		resp.Members = append(resp.Members, m.proto())
	}
	return resp
}
