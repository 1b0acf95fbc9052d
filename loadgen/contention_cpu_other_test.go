//go:build !unix

package loadgen

import "time"

// processCPU is not measured here; the contention benchmark reports 0.
func processCPU() time.Duration { return 0 }
