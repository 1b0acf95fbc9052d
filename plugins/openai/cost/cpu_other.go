//go:build !unix

package cost

import (
	"runtime/metrics"
	"time"
)

// cpuTime is the Go runtime's estimate of the CPU time this process has
// used in Go code and the collector (no getrusage here: the kernel's
// time in system calls is left out).
func cpuTime() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/user:cpu-seconds"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	var total float64
	for _, v := range s {
		if v.Value.Kind() == metrics.KindFloat64 {
			total += v.Value.Float64()
		}
	}
	return time.Duration(total * float64(time.Second))
}
