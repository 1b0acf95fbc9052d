package trt

import (
	"errors"
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
)

const plugin = "tensorrt"

var (
	// ErrRuntimeMissing is matched (errors.Is) by every [LibraryError]: a
	// runtime library (libcudart or the TensorRT shim) could not be loaded.
	ErrRuntimeMissing = accel.ErrRuntimeMissing
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

// sentinels are the backend's errors for calls out of order.
var sentinels = accel.Sentinels{NotLoaded: ErrNotLoaded, Loaded: ErrLoaded, Closed: ErrClosed}

// LibraryError reports a runtime library (libcudart or the shim) that
// could not be loaded, with every path tried and how to install it. It
// gives the host the status code FAILED_PRECONDITION.
type LibraryError = accel.LibraryError

// DeviceError is a failure of one CUDA device: after it the plugin stops
// scheduling work there and fails the samples it held. It gives the host
// the status code UNAVAILABLE.
type DeviceError = accel.DeviceError

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
