//go:build linux || darwin

package ort

import (
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// uintptrToPointer turns an address returned by C into an unsafe.Pointer
// (C memory, which the garbage collector does not track).
func uintptrToPointer(p uintptr) unsafe.Pointer { return native.Pointer(p) }

// goString copies the NUL-terminated C string at p; 0 gives "".
func goString(p uintptr) string { return native.GoString(p) }

// cString returns s as a NUL-terminated byte slice for passing to C.
func cString(s string) []byte { return native.CString(s) }
