//go:build linux || darwin

package ort

import (
	"errors"
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// ErrLibrary reports that the ONNX Runtime library could not be used: not
// found, not loadable, or too old. Errors wrapping it are *LibraryError
// and say how to get the library.
var ErrLibrary = errors.New("onnx runtime library unavailable")

// LibraryError reports a library that could not be loaded, with the fix.
type LibraryError struct {
	// Path is the library path given to dlopen.
	Path string
	// Err is what went wrong (dlopen's message, a missing symbol, an
	// unsupported version).
	Err error
	// Hint is how to get the library ([Config.Hint]); empty means
	// [DefaultHint].
	Hint string
}

// DefaultHint is how a user of the onnx plugin gets the library.
const DefaultHint = "run `make ort` to fetch ONNX Runtime " + Version + " into third_party/ort/, then pass its path with --set onnx." +
	OptLibrary + "=third_party/ort/" + DefaultLibrary + " (or put its directory on LD_LIBRARY_PATH)"

// Error says what failed and how to get the library.
func (e *LibraryError) Error() string {
	hint := e.Hint
	if hint == "" {
		hint = DefaultHint
	}
	return fmt.Sprintf("load ONNX Runtime library %q: %v; %s", e.Path, e.Err, hint)
}

// Unwrap returns the underlying error.
func (e *LibraryError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrLibrary) and errors.Is(err,
// engine.ErrUnavailable) true: a backend may serve the model with another
// engine.
func (e *LibraryError) Is(target error) bool {
	return target == ErrLibrary || target == engine.ErrUnavailable
}

// ErrorCode is ONNX Runtime's OrtErrorCode.
type ErrorCode int32

// The OrtErrorCode values (onnxruntime_c_api.h).
const (
	CodeOK               ErrorCode = 0
	CodeFail             ErrorCode = 1
	CodeInvalidArgument  ErrorCode = 2
	CodeNoSuchFile       ErrorCode = 3
	CodeNoModel          ErrorCode = 4
	CodeEngineError      ErrorCode = 5
	CodeRuntimeException ErrorCode = 6
	CodeInvalidProtobuf  ErrorCode = 7
	CodeModelLoaded      ErrorCode = 8
	CodeNotImplemented   ErrorCode = 9
	CodeInvalidGraph     ErrorCode = 10
	CodeEPFail           ErrorCode = 11
)

// String names the code as the C header does.
func (c ErrorCode) String() string {
	names := [...]string{"ORT_OK", "ORT_FAIL", "ORT_INVALID_ARGUMENT", "ORT_NO_SUCHFILE", "ORT_NO_MODEL",
		"ORT_ENGINE_ERROR", "ORT_RUNTIME_EXCEPTION", "ORT_INVALID_PROTOBUF", "ORT_MODEL_LOADED",
		"ORT_NOT_IMPLEMENTED", "ORT_INVALID_GRAPH", "ORT_EP_FAIL"}
	if c >= 0 && int(c) < len(names) {
		return names[c]
	}
	return fmt.Sprintf("ORT error code %d", int32(c))
}

// StatusError is a failed OrtStatus: ONNX Runtime's code and message.
type StatusError struct {
	Code    ErrorCode
	Message string
}

// Error formats the status as "onnxruntime: CODE: message".
func (e *StatusError) Error() string {
	return fmt.Sprintf("onnxruntime: %v: %s", e.Code, e.Message)
}
