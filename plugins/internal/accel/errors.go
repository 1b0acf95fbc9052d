package accel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// ErrRuntimeMissing is matched (errors.Is) by every [LibraryError]: a
// runtime library could not be loaded.
var ErrRuntimeMissing = errors.New("accelerator runtime library missing")

// LibraryError reports a runtime library that could not be loaded, with
// every path tried and how to install it.
type LibraryError struct {
	// Plugin names the plugin, e.g. "tensorrt".
	Plugin string
	// Library names what was looked for, e.g. "libcudart".
	Library string
	// Tried lists the paths or sonames passed to dlopen, in order.
	Tried []string
	// Hint says how to install the library or point the plugin at it.
	Hint string
	// Err is the last loader error.
	Err error
}

// Error names the library, the paths tried, the cause and the remedy.
func (e *LibraryError) Error() string {
	return fmt.Sprintf("%s: cannot load %s (tried %s): %v; %s",
		e.Plugin, e.Library, strings.Join(e.Tried, ", "), e.Err, e.Hint)
}

// Unwrap returns the loader's error.
func (e *LibraryError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrRuntimeMissing].
func (e *LibraryError) Is(target error) bool { return target == ErrRuntimeMissing }

// As gives the host the status code [abi.FailedPrecondition]: the machine
// lacks the runtime, which the user can install.
func (e *LibraryError) As(target any) bool { return AsStatus(target, abi.FailedPrecondition, e) }

// OpenLibrary opens the first loadable of paths for plugin.
//
// # Errors
//
// A [*LibraryError] names library, every path tried and hint.
func OpenLibrary(plugin, library string, paths []string, hint string) (*native.Library, error) {
	lib, err := native.Open(paths)
	if err != nil {
		return nil, &LibraryError{Plugin: plugin, Library: library, Tried: paths, Hint: hint, Err: err}
	}
	return lib, nil
}

// DeviceError is the failure of one device: after it the plugin stops
// scheduling work there and fails the samples the device held.
type DeviceError struct {
	// Plugin names the plugin, e.g. "tensorrt".
	Plugin string
	// Kind names the device for people, e.g. "CUDA device".
	Kind string
	// Device is the device's number (CUDA ordinal, QID).
	Device int
	// Err is the failing call's error.
	Err error
}

// Error names the device and the cause.
func (e *DeviceError) Error() string {
	return fmt.Sprintf("%s: %s %d failed: %v", e.Plugin, e.Kind, e.Device, e.Err)
}

// Unwrap returns the cause.
func (e *DeviceError) Unwrap() error { return e.Err }

// As gives the host the status code [abi.Unavailable]: the device, not the
// request, failed.
func (e *DeviceError) As(target any) bool { return AsStatus(target, abi.Unavailable, e) }

// AsStatus sets target, when it is a **sdk.StatusError, to err with code:
// that is how [sdk.CodeOf] finds the status code of a wrapped error. An
// error type's As method calls it.
func AsStatus(target any, code abi.Code, err error) bool {
	p, ok := target.(**sdk.StatusError)
	if ok {
		*p = &sdk.StatusError{Code: code, Message: err.Error()}
	}
	return ok
}
