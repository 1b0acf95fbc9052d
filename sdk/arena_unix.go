//go:build unix

package sdk

import (
	"fmt"
	"math"
	"os"
	"syscall"
)

// sharedArenaSupported: this platform can map the host's sample arena.
const sharedArenaSupported = true

// mapArena maps the first size bytes of the file at path read-only and
// returns them with the function that unmaps them.
func mapArena(path string, size uint64) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open sample arena: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("sample arena: %w", err)
	}
	if st.Size() < 0 || uint64(st.Size()) < size {
		return nil, nil, fmt.Errorf("sample arena %s has %d bytes, the host says %d", path, st.Size(), size)
	}
	if size == 0 {
		return []byte{}, func() {}, nil
	}
	if size > math.MaxInt {
		return nil, nil, fmt.Errorf("sample arena %s: %d bytes do not fit in memory", path, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map sample arena %s: %w", path, err)
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
