//go:build unix

package sdk

import (
	"fmt"
	"math"
	"os"
	"syscall"
)

// sharedArenaSupported: this platform can map the host's sample arena;
// sharedRingSupported: and a session's shared rings.
const (
	sharedArenaSupported = true
	sharedRingSupported  = true
)

// mapArena maps the first size bytes of the file at path read-only and
// returns them with the function that unmaps them.
func mapArena(path string, size uint64) ([]byte, func(), error) {
	return mapShared("sample arena", path, size, false)
}

// mapRing maps a session's ring file read-write.
func mapRing(path string, size uint64) ([]byte, func(), error) {
	return mapShared("ring file", path, size, true)
}

// mapShared maps the first size bytes of the host's file at path, shared
// with the host; what names the file in errors.
func mapShared(what, path string, size uint64, writable bool) ([]byte, func(), error) {
	flag, prot := os.O_RDONLY, syscall.PROT_READ
	if writable {
		flag, prot = os.O_RDWR, syscall.PROT_READ|syscall.PROT_WRITE
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", what, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if st.Size() < 0 || uint64(st.Size()) < size {
		return nil, nil, fmt.Errorf("%s %s has %d bytes, the host says %d", what, path, st.Size(), size)
	}
	if size == 0 {
		return []byte{}, func() {}, nil
	}
	if size > math.MaxInt {
		return nil, nil, fmt.Errorf("%s %s: %d bytes do not fit in memory", what, path, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), prot, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s %s: %w", what, path, err)
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
