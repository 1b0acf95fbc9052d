package accel

import (
	"errors"
	"sync/atomic"
)

// Health is one device's failure state, shared by its slots. The zero
// Health is healthy but unnamed: set it up with [Health.Init].
type Health struct {
	plugin, kind string
	id           int
	failed       atomic.Bool
	cause        atomic.Pointer[DeviceError]
}

// Init names the device for its errors: plugin, kind (e.g. "CUDA device")
// and number.
func (h *Health) Init(plugin, kind string, id int) { h.plugin, h.kind, h.id = plugin, kind, id }

// Failed reports whether the device failed.
func (h *Health) Failed() bool { return h.failed.Load() }

// Fail marks the device failed and returns the error to report: err
// itself when it already is a [*DeviceError], else the device's first
// failure.
func (h *Health) Fail(err error) error {
	var de *DeviceError
	if errors.As(err, &de) {
		return de
	}
	de = &DeviceError{Plugin: h.plugin, Kind: h.kind, Device: h.id, Err: err}
	if h.cause.CompareAndSwap(nil, de) {
		h.failed.Store(true)
		return de
	}
	return h.cause.Load()
}

// Err returns the device's failure, a [*DeviceError].
func (h *Health) Err() error {
	if de := h.cause.Load(); de != nil {
		return de
	}
	return &DeviceError{Plugin: h.plugin, Kind: h.kind, Device: h.id, Err: errors.New("failed")}
}
