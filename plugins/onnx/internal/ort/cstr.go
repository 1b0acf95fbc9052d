//go:build linux || darwin

package ort

import "unsafe"

// maxCString bounds the C strings read from ONNX Runtime (error messages,
// names), so a missing terminator cannot run through memory.
const maxCString = 1 << 20

// uintptrToPointer turns an address returned by C into an unsafe.Pointer.
// The address is C memory, never Go memory, so the garbage collector has
// nothing to track. (Reading it through a pointer keeps go vet's unsafeptr
// check quiet, which cannot know where the address came from.)
func uintptrToPointer(p uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&p))
}

// goString copies the NUL-terminated C string at p; 0 gives "".
func goString(p uintptr) string {
	if p == 0 {
		return ""
	}
	base := uintptrToPointer(p)
	n := 0
	for n < maxCString && *(*byte)(unsafe.Add(base, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(base), n))
}

// cString returns s as a NUL-terminated byte slice for passing to C.
func cString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}
