//go:build !(darwin || freebsd || linux || netbsd)

package native

// Mapped is memory a C runtime may keep pointers to; none exists here.
type Mapped struct{ n int }

// Map fails: nothing is loaded on this platform to use the memory.
func Map(int) (Mapped, error) { return Mapped{}, errPlatform }

// Bytes returns nil.
func (m Mapped) Bytes() []byte { return nil }

// Free does nothing.
func (m Mapped) Free() error { return nil }
