//go:build !race && (linux || darwin)

package ort

// raceEnabled is true under -race, whose instrumentation allocates.
const raceEnabled = false
