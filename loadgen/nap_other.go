//go:build !linux

package loadgen

import "time"

// kernelSleep reports whether the Server issuer sleeps in the kernel
// (nap) rather than on Go timers; elsewhere than Linux it uses Go timers.
const kernelSleep = false

// nap is not used where kernelSleep is false.
func nap(d time.Duration, _ bool) { time.Sleep(d) }

// holdIssuerThread has nothing to tune where kernelSleep is false.
func holdIssuerThread() (release func()) { return func() {} }
