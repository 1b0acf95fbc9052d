package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/mlperf-host/mlperf-host/abi"
)

// What a plugin did, as sentinel errors. A [*PluginError] wraps one of them
// (or a [*StatusError]) and names the plugin.
var (
	// ErrTrap: a WASM guest trapped (unreachable, out-of-bounds access, a
	// language runtime's fatal error or panic, proc_exit).
	ErrTrap = errors.New("trapped")
	// ErrMemoryLimit: a WASM guest needed memory past its cap.
	ErrMemoryLimit = errors.New("exceeded its memory limit")
	// ErrHang: a call into the plugin did not return within its deadline.
	ErrHang = errors.New("did not return in time")
	// ErrCrashed: a subprocess plugin exited.
	ErrCrashed = errors.New("exited")
	// ErrStalled: samples were in flight and nothing completed within the
	// stall deadline.
	ErrStalled = errors.New("stalled")
	// ErrProtocol: the plugin broke the ABI: a malformed frame or reply, an
	// unknown or duplicated sample id, a wrong signature.
	ErrProtocol = errors.New("broke the plugin ABI")
	// ErrVersionMismatch: the plugin speaks another ABI major.
	ErrVersionMismatch = errors.New("speaks another ABI version")
	// ErrChecksum: the plugin's file does not match its manifest's sha256.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrStart: the plugin could not be started.
	ErrStart = errors.New("failed to start")

	// ErrPluginNotFound: no plugin of that name in the plugin directories.
	ErrPluginNotFound = errors.New("plugin not found")
	// ErrAmbiguousPlugin: more than one plugin of that name.
	ErrAmbiguousPlugin = errors.New("more than one plugin matches")
	// ErrNotPlugin: a path that is neither a WASM module, an executable nor
	// a plugin directory.
	ErrNotPlugin = errors.New("not a plugin")
)

// PluginError is a failure of one plugin: which plugin, during which
// operation, and what happened.
type PluginError struct {
	// Plugin is the plugin's name.
	Plugin string
	// Op is the operation: "open", "info", "load", "issue", "session", ...
	Op string
	// Err is what happened; it wraps one of the ErrX sentinels of this
	// package or is a [*StatusError].
	Err error
}

// Error reads `plugin "echo": issue: trapped: wasm error: unreachable`.
func (e *PluginError) Error() string { return fmt.Sprintf("plugin %q: %s: %v", e.Plugin, e.Op, e.Err) }

// Unwrap returns Err.
func (e *PluginError) Unwrap() error { return e.Err }

// StatusError is a non-OK status a plugin returned: its code and message.
// errors.Is maps codes onto this package's sentinels and context's errors:
// Unimplemented → [ErrUnimplemented], Canceled → context.Canceled,
// DeadlineExceeded → context.DeadlineExceeded, VersionMismatch →
// [ErrVersionMismatch], and so on.
type StatusError struct {
	Code    abi.Code
	Message string
}

// Error reads "INVALID_ARGUMENT: unknown sample index 7".
func (e *StatusError) Error() string {
	if e.Message == "" {
		return e.Code.String()
	}
	return e.Code.String() + ": " + e.Message
}

// Is reports whether target is the sentinel of e's code.
func (e *StatusError) Is(target error) bool {
	s, ok := codeSentinels[e.Code]
	return ok && s == target
}

// Sentinels of status codes, for errors.Is on a [*StatusError].
var (
	ErrInvalidArgument    = errors.New("invalid argument")
	ErrNotFound           = errors.New("not found")
	ErrResourceExhausted  = errors.New("resource exhausted")
	ErrFailedPrecondition = errors.New("failed precondition")
	ErrUnimplemented      = errors.New("unimplemented")
	ErrInternal           = errors.New("internal error")
	ErrUnavailable        = errors.New("unavailable")
)

var codeSentinels = map[abi.Code]error{
	abi.Canceled:           context.Canceled,
	abi.DeadlineExceeded:   context.DeadlineExceeded,
	abi.InvalidArgument:    ErrInvalidArgument,
	abi.NotFound:           ErrNotFound,
	abi.ResourceExhausted:  ErrResourceExhausted,
	abi.FailedPrecondition: ErrFailedPrecondition,
	abi.Unimplemented:      ErrUnimplemented,
	abi.Internal:           ErrInternal,
	abi.Unavailable:        ErrUnavailable,
	abi.VersionMismatch:    ErrVersionMismatch,
}

// statusErr returns nil for OK, else a *StatusError. Unknown codes are
// treated as Internal, as the ABI says.
func statusErr(code abi.Code, msg string) error {
	if code == abi.OK {
		return nil
	}
	if !code.Known() {
		return &StatusError{Code: abi.Internal, Message: fmt.Sprintf("unknown status %d: %s", uint32(code), msg)}
	}
	return &StatusError{Code: code, Message: msg}
}

// versionMismatch is the error for a plugin that speaks another ABI major.
func versionMismatch(plugin string, major int) error {
	return &PluginError{Plugin: plugin, Op: "handshake", Err: fmt.Errorf(
		"%w: plugin speaks ABI v%d, this mlperf-host speaks v%d: upgrade mlperf-host or install a v%d build of the plugin",
		ErrVersionMismatch, major, abi.Major, abi.Major)}
}
