package loadgen

import (
	"slices"
	"time"
)

// spinAuto is run.spin's default: calibrate at the first Server phase.
const spinAuto time.Duration = -1

// Bounds of the calibrated spin on Go timers: at least minSpin (a timer
// never fires sooner than a few tens of microseconds late), at most
// maxSpin (beyond it spinning costs the SUT more CPU than lateness costs
// the latency).
const (
	minSpin = 50 * time.Microsecond
	maxSpin = 2 * time.Millisecond
)

// maxNapSpin bounds the spin after a kernel sleep. It is small on purpose:
// on a loaded machine a thread that spins uses up its share of the CPU and
// the scheduler then runs it late, where a thread that sleeps is woken at
// once. Under four busy loops per core a 50 µs spin after every nap put
// the median query 300-550 µs late, a 20 µs one 3-7 µs (BENCHMARKS.md,
// "Under CPU contention"): past that the issuer's spinning costs it its
// place in the run queue.
const maxNapSpin = 20 * time.Microsecond

// calibrateSpin measures how late a short timer fires on this machine and
// returns how much of each Server wait to spin so that queries are issued
// on time: twice the second-worst lateness of a few short sleeps, within
// [minSpin, maxSpin]. On a quiet Linux box timers are ~50 µs late and the
// default holds; on a busy or virtualized one a 10 µs timer can fire a
// millisecond late, which without this would add that much to every Server
// latency (latency counts from the scheduled time).
func calibrateSpin(timer *time.Timer) time.Duration {
	const probes, sleep = 8, 20 * time.Microsecond
	late := make([]time.Duration, probes)
	for i := range late {
		start := time.Now()
		timer.Reset(sleep)
		<-timer.C
		late[i] = time.Since(start) - sleep
	}
	slices.Sort(late)
	return min(max(2*late[probes-2], minSpin), maxSpin)
}

// calibrateNapSpin measures how late a short final nap wakes on the
// calling thread and returns how much of each Server wait to spin after
// it: twice the median lateness, at most maxNapSpin. With the thread's
// timer slack at 1 ns this is a few microseconds.
func calibrateNapSpin() time.Duration {
	const probes, sleep = 9, time.Microsecond
	late := make([]time.Duration, probes)
	for i := range late {
		start := time.Now()
		nap(sleep, true)
		late[i] = time.Since(start) - sleep
	}
	slices.Sort(late)
	return min(max(2*late[probes/2], 0), maxNapSpin)
}
