package acceltest

import (
	"runtime"
	"testing"
)

// NeedAffinity skips t unless CPU affinity can be set (Linux) and the
// machine has at least cpus CPUs to place NUMA nodes on.
func NeedAffinity(t testing.TB, cpus int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("CPU affinity is set on Linux only")
	}
	if runtime.NumCPU() < cpus {
		t.Skipf("needs %d CPUs to place NUMA nodes on, the machine has %d", cpus, runtime.NumCPU())
	}
}
