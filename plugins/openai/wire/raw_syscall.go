//go:build unix && (!linux || race)

package wire

import "syscall"

// sysRead and sysWrite are read(2) and write(2) through package syscall:
// on Unix but Linux, and in the race detector's builds.
func sysRead(fd uintptr, p []byte) (int, error) { return syscall.Read(int(fd), p) }

func sysWrite(fd uintptr, p []byte) (int, error) { return syscall.Write(int(fd), p) }
