package sdk

import (
	"context"
	"errors"
	"fmt"

	"github.com/mlperf-host/mlperf-host/abi"
)

// StatusError is an error with an ABI status code. Return one (see
// [Errorf]) from Load, LoadSamples, Infer or [Completer.Fail] to tell the
// host why something failed; any other error is reported as
// [abi.Internal].
type StatusError struct {
	Code    abi.Code
	Message string
}

// Error returns the message. The code travels beside it across the ABI,
// and the host prints both.
func (e *StatusError) Error() string { return e.Message }

// Errorf returns a [*StatusError] with code and a formatted message.
//
//	return sdk.Errorf(abi.InvalidArgument, "option threads=%q: want a number", v)
func Errorf(code abi.Code, format string, args ...any) error {
	return &StatusError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the status code the host receives for err: the code of a
// wrapped [*StatusError], [abi.Canceled] or [abi.DeadlineExceeded] for a
// context's errors, [abi.OK] for nil and [abi.Internal] otherwise.
func CodeOf(err error) abi.Code {
	var se *StatusError
	switch {
	case err == nil:
		return abi.OK
	case errors.As(err, &se):
		if se.Code == abi.OK {
			return abi.Unknown // an error is never OK
		}
		return se.Code
	case errors.Is(err, context.Canceled):
		return abi.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return abi.DeadlineExceeded
	}
	return abi.Internal
}
