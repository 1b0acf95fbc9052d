package aic

import (
	"errors"
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
)

const plugin = "qaic"

var (
	// ErrRuntimeMissing is matched (errors.Is) by a [LibraryError]: the
	// AIC runtime library could not be loaded.
	ErrRuntimeMissing = accel.ErrRuntimeMissing
	// ErrNotLoaded is returned by calls that need a program before Load.
	ErrNotLoaded = errors.New("qaic: no program loaded")
	// ErrLoaded is returned by a second Load: a backend serves one QPC.
	ErrLoaded = errors.New("qaic: a program is already loaded")
	// ErrClosed is returned by calls after Close.
	ErrClosed = errors.New("qaic: backend closed")
	// ErrNoDevice is returned when no usable AIC device is left.
	ErrNoDevice = errors.New("qaic: no usable AIC device")
)

// sentinels are the backend's errors for calls out of order.
var sentinels = accel.Sentinels{NotLoaded: ErrNotLoaded, Loaded: ErrLoaded, Closed: ErrClosed}

// LibraryError reports that libQAic could not be loaded, with the paths
// tried and how to install the runtime. It gives the host the status code
// FAILED_PRECONDITION.
type LibraryError = accel.LibraryError

// libraryHint says how to get libQAic.
const libraryHint = "install the Qualcomm Cloud AI Platform and Apps SDKs (qaic driver and " +
	"/opt/qti-aic/dev/lib/x86_64/libQAic.so), or set the plugin option library=/path/to/libQAic.so"

// DeviceError is the failure of one AIC device: the plugin stops
// scheduling there and fails the samples it held. It gives the host the
// status code UNAVAILABLE.
type DeviceError = accel.DeviceError

// Status is a QStatus returned by the AIC runtime.
type Status int32

// QStatus values from QAicTypes.h.
const (
	StatusSuccess      Status = 0
	StatusPerm         Status = 1
	StatusAgain        Status = 2
	StatusNoMem        Status = 3
	StatusBusy         Status = 4
	StatusNoDev        Status = 5
	StatusInval        Status = 6
	StatusNoSpc        Status = 7
	StatusBadFD        Status = 8
	StatusTimedOut     Status = 9
	StatusProtocol     Status = 10
	StatusUnsupported  Status = 11
	StatusCRC          Status = 12
	StatusDevError     Status = 300
	StatusGenericError Status = 500
)

var statusNames = map[Status]string{
	StatusSuccess: "QS_SUCCESS", StatusPerm: "QS_PERM", StatusAgain: "QS_AGAIN", StatusNoMem: "QS_NOMEM",
	StatusBusy: "QS_BUSY", StatusNoDev: "QS_NODEV", StatusInval: "QS_INVAL", StatusNoSpc: "QS_NOSPC",
	StatusBadFD: "QS_BADFD", StatusTimedOut: "QS_TIMEDOUT", StatusProtocol: "QS_PROTOCOL",
	StatusUnsupported: "QS_UNSUPPORTED", StatusCRC: "QS_DATA_CRC_ERROR", StatusDevError: "QS_DEV_ERROR",
	StatusGenericError: "QS_ERROR",
}

// String returns the QStatus name, e.g. "QS_NOSPC".
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("QStatus(%d)", int32(s))
}

// deviceFatal reports whether s means the device, not the call, failed.
func (s Status) deviceFatal() bool {
	return s == StatusDevError || s == StatusNoDev || s == StatusTimedOut
}

// StatusError is a failed AIC runtime call.
type StatusError struct {
	// Op is the C function, e.g. "qaicEnqueueExecObj".
	Op string
	// Status is what it returned.
	Status Status
}

// Error names the call and the status.
func (e *StatusError) Error() string { return fmt.Sprintf("%s: %s", e.Op, e.Status) }
