package loadgen

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
)

// ErrAborted is wrapped by the error a test returns when its SUT aborted
// it with [Responder.Abort].
var ErrAborted = errors.New("loadgen: the SUT aborted the test")

// AbortError is the error of a test the SUT aborted: errors.Is(err,
// ErrAborted) holds, and errors.Is / errors.As also see the SUT's cause.
type AbortError struct {
	Cause error
}

// Error reads "the SUT aborted the test: <cause>".
func (e *AbortError) Error() string { return "the SUT aborted the test: " + e.Cause.Error() }

// Unwrap returns ErrAborted and the cause.
func (e *AbortError) Unwrap() []error { return []error{ErrAborted, e.Cause} }

// aborter is the part of a Responder that ends its run early.
type aborter struct {
	cancel atomic.Pointer[context.CancelCauseFunc]
}

// Abort ends the test now because the SUT cannot go on: its backend
// crashed, or it failed a sample and any result would be invalid anyway.
// It is an extension of the official API, which has no way to say so.
//
// The LoadGen stops issuing, stops waiting for the samples in flight
// (they will not come), writes one error entry naming cause and counting
// the samples issued and not completed, skips the rest of the test (the
// remaining loadable sets, the performance pass of a submission run, the
// next FindPeakPerformance trial), writes the logs and returns an
// [*AbortError] wrapping cause from [Run.Start]. The result is invalid.
//
// Abort is safe from any goroutine, returns at once and may be called more
// than once: the first cause wins. Before the test starts and after it ends
// it does nothing. Responses that arrive after Abort are counted as late.
func (r *Responder) Abort(cause error) {
	if cause == nil {
		cause = errors.New("no cause given")
	}
	if c := r.abort.cancel.Load(); c != nil {
		(*c)(&AbortError{Cause: cause})
	}
}

// withAbort derives the test's context: Abort cancels it with an
// *AbortError. The returned function detaches the Responder and releases
// the context.
func (r *Responder) withAbort(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	r.abort.cancel.Store(&cancel)
	return ctx, func() {
		r.abort.cancel.Store(nil)
		cancel(context.Canceled)
	}
}

// abortCause returns the *AbortError that ended ctx, or nil when ctx was
// not ended by Abort.
func abortCause(ctx context.Context) *AbortError {
	var ae *AbortError
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &ae) {
		return ae
	}
	return nil
}

// logAbort writes the one error entry of an aborted phase.
func (p *phase) logAbort(ae *AbortError, issued, incomplete int) {
	p.r.logs.detail("error_runtime", vString("The SUT aborted the test: "+ae.Cause.Error()+
		"; samples issued: "+strconv.Itoa(issued)+", not completed (counted as failed): "+strconv.Itoa(incomplete)),
		levelError, "loadgen/abort.go")
}
