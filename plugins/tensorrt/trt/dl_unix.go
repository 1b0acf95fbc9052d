//go:build darwin || freebsd || linux || netbsd

package trt

import (
	"errors"
	"fmt"

	"github.com/ebitengine/purego"
)

// library is a dlopen'ed shared object.
type library struct {
	path   string
	handle uintptr
}

// openLibrary dlopens the first of candidates that loads. RTLD_LOCAL keeps
// its symbols out of the global scope, so two copies of a library (one per
// test) never resolve each other's symbols.
func openLibrary(name string, candidates []string, hint string) (*library, error) {
	var last error = errors.New("no candidate paths")
	for _, c := range candidates {
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			return &library{path: c, handle: h}, nil
		}
		last = err
	}
	return nil, &LibraryError{Library: name, Tried: candidates, Hint: hint, Err: last}
}

// symbol is one C function to resolve into *fn.
type symbol struct {
	name string
	fn   *uintptr
	// optional symbols may be absent; *fn stays 0.
	optional bool
}

// bind resolves every symbol of table or names the first missing one.
func (l *library) bind(table []symbol) error {
	for _, s := range table {
		p, err := purego.Dlsym(l.handle, s.name)
		if err != nil || p == 0 {
			if s.optional {
				continue
			}
			return fmt.Errorf("%s: missing symbol %s: %w", l.path, s.name, err)
		}
		*s.fn = p
	}
	return nil
}
