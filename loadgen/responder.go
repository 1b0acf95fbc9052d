package loadgen

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// Responder is the completion handle the LoadGen gives the SUT with every
// query: the official QuerySamplesComplete and FirstTokenComplete. Its
// methods are safe to call from many goroutines at once and allocate
// nothing when the responses are valid.
//
// The same Responder serves a whole run. Calls after the run has ended are
// rejected with [ErrRunEnded].
type Responder struct {
	phase atomic.Pointer[phase]
	late  atomic.Int64
	abort aborter
}

// ErrRunEnded is returned for responses that arrive after the run ended.
var ErrRunEnded = errors.New("loadgen: response after the run ended")

// ErrBadResponse is wrapped by every [*ResponseError].
var ErrBadResponse = errors.New("loadgen: invalid response")

// ResponseError reports responses the LoadGen rejected: unknown ids,
// samples completed twice or not issued yet. Each is also logged as an
// error in the detail log and makes the run invalid.
type ResponseError struct {
	// Rejected is how many responses of the call were rejected.
	Rejected int
	// First describes the first of them.
	First string
}

// Error describes the rejected responses.
func (e *ResponseError) Error() string {
	if e.Rejected == 1 {
		return "loadgen: invalid response: " + e.First
	}
	return fmt.Sprintf("loadgen: %d invalid responses, the first: %s", e.Rejected, e.First)
}

// Unwrap makes errors.Is(err, ErrBadResponse) true.
func (e *ResponseError) Unwrap() error { return ErrBadResponse }

// QuerySamplesComplete records the completion of samples. Each response's
// Data is copied before it returns if the response is logged; the caller
// may reuse the slice and the data afterwards. Latency is measured from
// the query's scheduled time to this call.
//
// # Errors
//
// A [*ResponseError] when some responses are invalid (the valid ones are
// still recorded), [ErrRunEnded] after the run.
func (r *Responder) QuerySamplesComplete(responses []QuerySampleResponse) error {
	p := r.phase.Load()
	if p == nil {
		r.late.Add(int64(len(responses)))
		return ErrRunEnded
	}
	return p.complete(responses)
}

// FirstTokenComplete records the first token of samples, for the time to
// first token of token-latency runs. It must come before the sample's
// QuerySamplesComplete.
//
// # Errors
//
// As QuerySamplesComplete.
func (r *Responder) FirstTokenComplete(responses []QuerySampleResponse) error {
	p := r.phase.Load()
	if p == nil {
		r.late.Add(int64(len(responses)))
		return ErrRunEnded
	}
	return p.firstTokens(responses)
}

// ResponseLogged reports whether the response to sample id will be written
// to the accuracy log (every sample in accuracy mode, a random subset when
// accuracy-log sampling is on, as in TEST01). A SUT may skip producing the
// output data of samples for which it is false.
func (r *Responder) ResponseLogged(id uint64) bool {
	p := r.phase.Load()
	if p == nil {
		return false
	}
	return p.logged(id)
}

// Late returns how many responses arrived after the run ended.
func (r *Responder) Late() int64 { return r.late.Load() }
