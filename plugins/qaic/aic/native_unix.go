//go:build darwin || freebsd || linux || netbsd

package aic

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/ebitengine/purego"
)

// dlopenFirst returns the handle and path of the first candidate that
// loads, keeping its symbols local to it.
func dlopenFirst(candidates []string) (uintptr, string, error) {
	err := errors.New("no candidate paths")
	for _, c := range candidates {
		h, openErr := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if openErr == nil {
			return h, c, nil
		}
		err = openErr
	}
	return 0, "", &LibraryError{Tried: candidates, Err: err}
}

// dlsym resolves one symbol, naming it when it is missing.
func dlsym(h uintptr, path, name string) (uintptr, error) {
	p, err := purego.Dlsym(h, name)
	if err != nil || p == 0 {
		return 0, fmt.Errorf("qaic: %s lacks %s: %w", path, name, err)
	}
	return p, nil
}

// hostBuf is page-aligned memory outside the Go heap, which the runtime
// may keep pointers to after a call returns (exec object buffers, QPC
// bytes, program properties).
type hostBuf struct {
	mapping []byte // as returned by mmap, for munmap
	n       int
}

func allocHost(n int) (hostBuf, error) {
	m, err := syscall.Mmap(-1, 0, max(n, 1), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return hostBuf{}, fmt.Errorf("qaic: map %d bytes: %w", n, err)
	}
	return hostBuf{mapping: m, n: n}, nil
}

// bytes returns the buffer's n bytes.
func (b hostBuf) bytes() []byte { return b.mapping[:b.n] }

func (b hostBuf) free() error {
	if b.mapping == nil {
		return nil
	}
	return syscall.Munmap(b.mapping)
}
