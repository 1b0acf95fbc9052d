//go:build unix

package sdk

import (
	"fmt"
	"math"
	"os"
	"syscall"

	"github.com/mlperf-host/mlperf-host/abi"
)

// sharedArenaSupported: this platform can map the host's sample arena;
// sharedRingSupported: and a session's shared rings.
const (
	sharedArenaSupported = true
	sharedRingSupported  = true
)

// mapArena maps the first size bytes of the file at path, which must lie
// in dir, read-only and returns them with the function that unmaps them.
func mapArena(dir, path string, size uint64) ([]byte, func(), error) {
	return mapShared(dir, "sample arena", path, size, false)
}

// mapRing maps a session's ring file, which must lie in dir, read-write.
func mapRing(dir, path string, size uint64) ([]byte, func(), error) {
	return mapShared(dir, "ring file", path, size, true)
}

// mapShared maps the first size bytes of the host's file at path, shared
// with the host; what names the file in errors. The file must be a
// regular file directly in dir (the host's shared-memory directory) with
// a host's name, reached without following a link: a request naming any
// other file is refused with the same words whether it exists or not.
func mapShared(dir, what, path string, size uint64, writable bool) ([]byte, func(), error) {
	name, ok := abi.InSharedMemoryDir(dir, path)
	if !ok {
		return nil, nil, fmt.Errorf("%s: not a file of this plugin's shared-memory directory", what)
	}
	flag, prot := os.O_RDONLY, syscall.PROT_READ
	if writable {
		flag, prot = os.O_RDWR, syscall.PROT_READ|syscall.PROT_WRITE
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the shared-memory directory: %w", what, err)
	}
	defer root.Close()
	f, err := root.OpenFile(name, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a file of this plugin's shared-memory directory", what)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a file of this plugin's shared-memory directory", what)
	}
	if st.Size() < 0 || uint64(st.Size()) < size {
		return nil, nil, fmt.Errorf("%s %s has %d bytes, the host says %d", what, name, st.Size(), size)
	}
	if size == 0 {
		return []byte{}, func() {}, nil
	}
	if size > math.MaxInt {
		return nil, nil, fmt.Errorf("%s %s: %d bytes do not fit in memory", what, name, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), prot, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s %s: %w", what, name, err)
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
