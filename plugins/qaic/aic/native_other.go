//go:build !(darwin || freebsd || linux || netbsd)

package aic

import (
	"errors"
	"runtime"
)

var errPlatform = errors.New("the AIC runtime is not supported on " + runtime.GOOS)

func dlopenFirst(candidates []string) (uintptr, string, error) {
	return 0, "", &LibraryError{Tried: candidates, Err: errPlatform}
}

func dlsym(uintptr, string, string) (uintptr, error) { return 0, errPlatform }

// hostBuf is memory the runtime may keep pointers to; none exists here.
type hostBuf struct{ n int }

func allocHost(int) (hostBuf, error) { return hostBuf{}, errPlatform }

func (b hostBuf) bytes() []byte { return nil }

func (b hostBuf) free() error { return nil }
