//go:build !unix

package host

import (
	"errors"
	"os"
	"os/exec"
)

func setProcAttrs(*exec.Cmd) {}

func killGroup(int) {}

func processAlive(int) bool { return true }

const (
	sharedArenaSupported = false
	sharedRingSupported  = false
)

func mapRingFile(*os.File, int) ([]byte, func() error, error) {
	return nil, nil, errors.New("this platform cannot map a shared ring file")
}
