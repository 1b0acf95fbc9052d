//go:build !unix && !wasip1

package sdk

import "errors"

// sharedArenaSupported: this platform cannot map the host's sample
// arena; samples arrive inline.
const sharedArenaSupported = false

func mapArena(string, uint64) ([]byte, func(), error) {
	return nil, nil, errors.New("this platform cannot map a shared sample arena")
}
