package accel

import (
	"errors"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// ModelSource returns where a plugin takes its model from: the file its
// model option names when set (option is that option's value), else the
// file m.Path names, else m.Bytes. Exactly one of path and data is set,
// or neither when the host sent no model. The option wins because a host
// may send a benchmark's bundled model as m.Bytes.
func ModelSource(m sdk.Model, option string) (path string, data []byte) {
	path = option
	if path == "" {
		path = m.Path
	}
	if path != "" {
		return path, nil
	}
	return "", m.Bytes
}

// Discovered completes info with the devices a plugin found and its
// MaxInFlight before Load: perDevice slots on each device of want that was
// found (every device found when want is nil), and on one device when
// none is. A discovery error is said in the description: the runtime is
// unavailable (a [LibraryError]) or listed no devices.
func Discovered(info sdk.Info, devices []sdk.Device, err error, want []int, perDevice int) sdk.Info {
	switch {
	case errors.Is(err, ErrRuntimeMissing):
		info.Description += " (unavailable: " + err.Error() + ")"
	case err != nil:
		info.Description += " (no devices: " + err.Error() + ")"
	}
	info.Devices = devices
	found := make([]int, len(devices))
	for i, d := range devices {
		found[i] = d.ID
	}
	info.MaxInFlight = perDevice * max(1, len(SelectDevices(want, found)))
	return info
}
