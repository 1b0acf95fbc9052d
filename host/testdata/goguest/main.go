//go:build wasip1

// Command goguest is a minimal ABI v1 WASM guest written in Go against abi
// only (no SDK), for the host's tests of what the Go runtime does when a
// guest fails: a panic, a deadlock, running out of memory at the host's cap,
// an endless loop. Each sample completes with its 8-byte index; the first
// sample index of an issue call selects a fault (0xFB0000_MM):
//
//	01 panic   02 deadlock (block forever)   03 allocate until out of memory
//	04 loop forever
//
// The tests build it with GOOS=wasip1 GOARCH=wasm -buildmode=c-shared.
package main

import (
	"encoding/binary"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/abi"
)

//go:wasmimport mlperf_host_v1 reply
func reply(ptr, n uint32)

//go:wasmimport mlperf_host_v1 complete
func complete(ptr, count uint32) uint32

//go:wasmimport mlperf_host_v1 first_token
func firstToken(ptr, count uint32) uint32

//go:wasmimport mlperf_host_v1 log
func hostLog(level int32, ptr, n uint32)

// live keeps the buffers handed to the host reachable.
var live = map[uint32][]byte{}

func addr(b []byte) uint32 { return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }

func view(ptr, n uint32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(uintptr(ptr))), n) }

//go:wasmexport mlperf_v1_abi_version
func abiVersion() uint32 { return abi.Version }

//go:wasmexport mlperf_v1_alloc
func alloc(size uint32) uint32 {
	b := make([]byte, max(size, 1))
	p := addr(b)
	live[p] = b
	return p
}

//go:wasmexport mlperf_v1_free
func free(ptr uint32) { delete(live, ptr) }

// infoResponse is InfoResponse{abi_major: 1, name: "goguest", version:
// "1.0", max_batch: 0}, encoded by hand to keep protobuf out.
var infoResponse = []byte{0x10, 0x01, 0x22, 0x07, 'g', 'o', 'g', 'u', 'e', 's', 't', 0x2a, 0x03, '1', '.', '0'}

//go:wasmexport mlperf_v1_info
func info(ptr, n uint32) uint32 {
	reply(addr(infoResponse), uint32(len(infoResponse)))
	return uint32(abi.OK)
}

//go:wasmexport mlperf_v1_load
func load(ptr, n uint32) uint32 { return uint32(abi.OK) }

//go:wasmexport mlperf_v1_load_samples
func loadSamples(ptr, n uint32) uint32 { return uint32(abi.OK) }

//go:wasmexport mlperf_v1_unload_samples
func unloadSamples(ptr, n uint32) uint32 { return uint32(abi.OK) }

//go:wasmexport mlperf_v1_close
func closeBackend(ptr, n uint32) uint32 { return uint32(abi.OK) }

var (
	out   []byte // completion records, reused
	data  []byte // outputs, reused
	hoard [][]byte
	spins uint64
)

//go:wasmexport mlperf_v1_issue
func issue(ptr, count uint32) uint32 {
	recs, err := abi.ParseIssueRecords(view(ptr, count*abi.IssueRecordSize))
	if err != nil || recs.Len() == 0 {
		return uint32(abi.InvalidArgument)
	}
	switch first := recs.At(0).Index; first {
	case 0xFB000001:
		panic("boom from Go")
	case 0xFB000002:
		select {}
	case 0xFB000003:
		for {
			hoard = append(hoard, make([]byte, 1<<20))
		}
	case 0xFB000004:
		for {
			spins++
		}
	}
	n := recs.Len()
	if cap(out) < n*abi.WasmCompletionRecordSize {
		out = make([]byte, n*abi.WasmCompletionRecordSize)
		data = make([]byte, n*8)
	}
	for i := range n {
		r := recs.At(i)
		d := data[i*8 : i*8+8]
		binary.LittleEndian.PutUint64(d, r.Index)
		abi.PutWasmCompletionRecord(out[i*abi.WasmCompletionRecordSize:], abi.WasmCompletionRecord{
			ID: r.ID, Status: abi.OK, DataPtr: addr(d), DataLen: 8})
	}
	return complete(addr(out), uint32(n))
}

func main() {}
