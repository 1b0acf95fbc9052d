//go:build !unix && !wasip1

package sdk

import "errors"

// sharedArenaSupported, sharedRingSupported: this platform cannot map the
// host's shared memory; samples and records travel in messages.
const (
	sharedArenaSupported = false
	sharedRingSupported  = false
)

func mapArena(string, string, uint64) ([]byte, func(), error) {
	return nil, nil, errors.New("this platform cannot map a shared sample arena")
}

func mapRing(string, string, uint64) ([]byte, func(), error) {
	return nil, nil, errors.New("this platform cannot map a shared ring file")
}
