//go:build !(darwin || freebsd || linux || netbsd)

package trt

import (
	"errors"
	"runtime"
)

// library is a loaded shared object; none can be loaded on this platform.
type library struct {
	path   string
	handle uintptr
}

// openLibrary reports that this platform has no dlopen support in the
// plugin; the binary still builds so the host can list it.
func openLibrary(name string, candidates []string, hint string) (*library, error) {
	return nil, &LibraryError{Library: name, Tried: candidates, Hint: hint,
		Err: errors.New("loading native libraries is not supported on " + runtime.GOOS)}
}

// symbol is one C function to resolve into *fn.
type symbol struct {
	name     string
	fn       *uintptr
	optional bool
}

func (l *library) bind([]symbol) error { return errors.New("not supported on " + runtime.GOOS) }
