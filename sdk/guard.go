package sdk

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic in backend code that the SDK recovered. The host
// receives it as [abi.Internal] with the panic value and, for a control
// call, the stack. A panic in Infer fails the call's samples with the
// value only: the SDK logs the stack once (see [Server]).
type PanicError struct {
	// Op is the Backend method that panicked, e.g. "Infer".
	Op    string
	Value any
	// Stack is the panicking goroutine's stack; nil in the error each
	// sample of a panicking Infer call fails with.
	Stack []byte
}

// Error returns the panic value and the stack, if any.
func (e *PanicError) Error() string {
	if len(e.Stack) == 0 {
		return fmt.Sprintf("backend panicked in %s: %v", e.Op, e.Value)
	}
	return fmt.Sprintf("backend panicked in %s: %v\n%s", e.Op, e.Value, e.Stack)
}

func newPanicError(op string, v any) *PanicError {
	return &PanicError{Op: op, Value: v, Stack: debug.Stack()}
}

// guard runs f and turns a panic in it into a *PanicError.
func guard(op string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(op, r)
		}
	}()
	return f()
}
