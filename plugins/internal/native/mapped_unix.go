//go:build darwin || freebsd || linux || netbsd

package native

import (
	"fmt"
	"syscall"
)

// Mapped is page-aligned memory outside the Go heap, which a C runtime may
// keep pointers to after a call returns (buffers it reads or writes
// later, objects it was handed by address).
type Mapped struct {
	mapping []byte // as returned by mmap, for munmap
	n       int
}

// Map maps n bytes of zeroed anonymous memory.
func Map(n int) (Mapped, error) {
	m, err := syscall.Mmap(-1, 0, max(n, 1), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return Mapped{}, fmt.Errorf("map %d bytes: %w", n, err)
	}
	return Mapped{mapping: m, n: n}, nil
}

// Bytes returns the n bytes mapped.
func (m Mapped) Bytes() []byte { return m.mapping[:m.n] }

// Free unmaps the memory; freeing the zero Mapped does nothing.
func (m Mapped) Free() error {
	if m.mapping == nil {
		return nil
	}
	return syscall.Munmap(m.mapping)
}
