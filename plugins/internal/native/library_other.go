//go:build !(darwin || freebsd || linux || netbsd)

package native

import (
	"errors"
	"runtime"
)

// errPlatform is every call's error where dlopen is not available.
var errPlatform = errors.New("loading native libraries is not supported on " + runtime.GOOS)

// Library is a loaded shared object; none can be loaded on this platform.
type Library struct {
	// Path is the candidate that loaded.
	Path   string
	handle uintptr
}

// Open reports that this platform has no dlopen support; the plugins
// still build so that the host can list them.
func Open([]string) (*Library, error) { return nil, errPlatform }

// Dlsym fails: nothing is loaded on this platform.
func Dlsym(uintptr, string) (uintptr, error) { return 0, errPlatform }

// Handle is the dlopen handle.
func (l *Library) Handle() uintptr { return l.handle }

// Symbol fails: nothing is loaded on this platform.
func (l *Library) Symbol(string) (uintptr, error) { return 0, errPlatform }

// Symbol is one C function to resolve into *Fn.
type Symbol struct {
	Name     string
	Fn       *uintptr
	Optional bool
}

// Bind fails: nothing is loaded on this platform.
func (l *Library) Bind([]Symbol) error { return errPlatform }
