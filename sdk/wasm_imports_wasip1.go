//go:build wasip1

package sdk

import "unsafe"

// The host functions of ABI v1 (module mlperf_host_v1). Every pointer is
// an address in this module's memory; the host copies what it keeps
// before returning.

//go:wasmimport mlperf_host_v1 reply
func hostReply(ptr unsafe.Pointer, n uint32)

//go:wasmimport mlperf_host_v1 complete
func hostComplete(ptr unsafe.Pointer, count uint32) uint32

//go:wasmimport mlperf_host_v1 first_token
func hostFirstToken(ptr unsafe.Pointer, count uint32) uint32

//go:wasmimport mlperf_host_v1 log
func hostLog(level int32, ptr unsafe.Pointer, n uint32)

// bytesPtr returns the address of b's first byte, nil for an empty b.
func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// addr returns the guest address of b's first byte, 0 for an empty b.
func addr(b []byte) uint32 { return uint32(uintptr(bytesPtr(b))) }
