package sdk

import "fmt"

// maxLoggedPanics is how many panics in Infer a Server logs one by one;
// the first with its stack.
const maxLoggedPanics = 8

// panicked handles a panic recovered from Infer: the first is logged with
// its stack, the next few as one line each, the rest only counted; the
// samples of the call fail with the short error returned. A backend that
// panics on every call thus writes one stack, not one per sample (a
// goroutine stack is kilobytes, and a query may hold thousands of samples).
func (s *Server) panicked(op string, v any, samples int) error {
	pe := newPanicError(op, v)
	switch n := s.panics.Add(1); {
	case n == 1:
		s.log.Error("backend panicked in "+op, "panic", fmt.Sprint(v), "samples", samples, "stack", string(pe.Stack))
	case n <= maxLoggedPanics:
		s.log.Error("backend panicked in "+op+" again (stack logged at the first panic)", "panic", fmt.Sprint(v),
			"samples", samples, "panics", n)
	case n == maxLoggedPanics+1:
		s.log.Error("backend keeps panicking in "+op+": further panics are not logged", "panics", n)
	}
	return &PanicError{Op: op, Value: v}
}
