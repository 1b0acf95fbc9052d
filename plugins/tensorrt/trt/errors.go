package trt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

var (
	// ErrRuntimeMissing is matched (errors.Is) by every [LibraryError]: a
	// runtime library (libcudart or the TensorRT shim) could not be loaded.
	ErrRuntimeMissing = errors.New("tensorrt: runtime library missing")
	// ErrNotLoaded is returned by calls that need a model before Load.
	ErrNotLoaded = errors.New("tensorrt: no model loaded")
	// ErrLoaded is returned by a second Load: a backend serves one model.
	ErrLoaded = errors.New("tensorrt: a model is already loaded")
	// ErrClosed is returned by calls after Close.
	ErrClosed = errors.New("tensorrt: backend closed")
	// ErrNoDevice is returned when no usable CUDA device is left: none was
	// found, none was selected, or every selected device failed.
	ErrNoDevice = errors.New("tensorrt: no usable CUDA device")
	// ErrDeviceTimeout reports a batch that ran longer than the timeout
	// option: the device is treated as hung and fails.
	ErrDeviceTimeout = errors.New("tensorrt: device timeout")
)

// LibraryError reports a runtime library that could not be loaded, with
// every path tried and how to install it.
type LibraryError struct {
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
	return fmt.Sprintf("tensorrt: cannot load %s (tried %s): %v; %s",
		e.Library, strings.Join(e.Tried, ", "), e.Err, e.Hint)
}

// Unwrap returns the loader's error.
func (e *LibraryError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrRuntimeMissing].
func (e *LibraryError) Is(target error) bool { return target == ErrRuntimeMissing }

// As gives the host the status code [abi.FailedPrecondition]: the machine
// lacks the runtime, which the user can install.
func (e *LibraryError) As(target any) bool { return asStatus(target, abi.FailedPrecondition, e) }

// CUDAError is a failed CUDA runtime call.
type CUDAError struct {
	// Op is the CUDA function, e.g. "cudaMalloc".
	Op string
	// Code is the cudaError_t value.
	Code int
	// Message is cudaGetErrorString(Code).
	Message string
}

// Error formats the call, code and CUDA's own message.
func (e *CUDAError) Error() string {
	return fmt.Sprintf("%s: CUDA error %d: %s", e.Op, e.Code, e.Message)
}

// ShimError is a failed call into the TensorRT shim, with TensorRT's
// message when it logged one.
type ShimError struct {
	// Op is the shim function, e.g. "mlph_trt_context_enqueue".
	Op string
	// Message is the shim's error text.
	Message string
}

// Error formats the call and the shim's message.
func (e *ShimError) Error() string { return fmt.Sprintf("%s: %s", e.Op, e.Message) }

// DeviceError is a failure of one CUDA device: after it the plugin stops
// scheduling work there and fails the samples it held.
type DeviceError struct {
	// Device is the CUDA device ordinal.
	Device int
	// Err is the failing call's error.
	Err error
}

// Error names the device and the cause.
func (e *DeviceError) Error() string {
	return fmt.Sprintf("tensorrt: CUDA device %d failed: %v", e.Device, e.Err)
}

// Unwrap returns the cause.
func (e *DeviceError) Unwrap() error { return e.Err }

// As gives the host the status code [abi.Unavailable]: the device, not the
// request, failed.
func (e *DeviceError) As(target any) bool { return asStatus(target, abi.Unavailable, e) }

// asStatus sets target, when it is a **sdk.StatusError, to err with code:
// that is how [sdk.CodeOf] finds the status code of a wrapped error.
func asStatus(target any, code abi.Code, err error) bool {
	p, ok := target.(**sdk.StatusError)
	if ok {
		*p = &sdk.StatusError{Code: code, Message: err.Error()}
	}
	return ok
}
