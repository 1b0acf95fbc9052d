package sdk

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic in backend code that the SDK recovered. The host
// receives it as [abi.Internal] with the panic value and the stack.
type PanicError struct {
	// Op is the Backend method that panicked, e.g. "Infer".
	Op    string
	Value any
	Stack []byte
}

// Error returns the panic value and the stack.
func (e *PanicError) Error() string {
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
