//go:build darwin || freebsd || linux || netbsd

package native

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/ebitengine/purego"
)

// Library is a shared object opened with dlopen. It is never closed:
// runtimes keep process-wide state that dlclose would leave dangling.
type Library struct {
	// Path is the candidate that loaded.
	Path   string
	handle uintptr
}

// Open dlopens the first of candidates that loads. RTLD_LOCAL keeps its
// symbols out of the global scope, so two copies of a library (one per
// test) never resolve each other's symbols.
//
// # Errors
//
// With no candidate loadable, Open returns the last loader error.
func Open(candidates []string) (*Library, error) {
	last := errors.New("no candidate paths")
	for _, c := range candidates {
		h, err := dlopen(c)
		if err == nil {
			return &Library{Path: c, handle: h}, nil
		}
		last = err
	}
	return nil, last
}

// dlopen opens path on one OS thread: dlerror's message is the calling
// thread's, and purego calls dlopen and then dlerror as two calls between
// which the goroutine may move to another thread (more often the busier
// the machine), leaving the error empty or another call's.
func dlopen(path string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

// Dlsym resolves name in the library of handle, on one OS thread for the
// reason dlopen gives.
func Dlsym(handle uintptr, name string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlsym(handle, name)
}

// Handle is the dlopen handle, for callers that resolve symbols by name
// in their own way.
func (l *Library) Handle() uintptr { return l.handle }

// Symbol returns the address of the C function name.
func (l *Library) Symbol(name string) (uintptr, error) {
	p, err := Dlsym(l.handle, name)
	if err == nil && p == 0 {
		err = errors.New("nil address")
	}
	if err != nil {
		return 0, fmt.Errorf("%s: missing symbol %s: %w", l.Path, name, err)
	}
	return p, nil
}

// Symbol is one C function to resolve into *Fn.
type Symbol struct {
	Name string
	Fn   *uintptr
	// Optional symbols may be absent; *Fn then stays 0.
	Optional bool
}

// Bind resolves every symbol of table.
//
// # Errors
//
// Bind names the library and the first required symbol it lacks.
func (l *Library) Bind(table []Symbol) error {
	for _, s := range table {
		p, err := l.Symbol(s.Name)
		if err != nil {
			if s.Optional {
				continue
			}
			return err
		}
		*s.Fn = p
	}
	return nil
}
