//go:build !linux

package kernels

import "time"

// cpuTime is 0 where the process's CPU time is not read (WASM has none).
func cpuTime() time.Duration { return 0 }
