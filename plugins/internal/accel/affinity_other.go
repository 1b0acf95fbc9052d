//go:build !linux

package accel

import (
	"errors"
	"runtime"
)

// Pin is not supported here: CPU affinity is set on Linux only.
func Pin([]int) (func(), error) {
	return nil, errors.New("CPU affinity is not supported on " + runtime.GOOS)
}
