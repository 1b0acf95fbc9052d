//go:build wasip1

package sdk

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/abi"
)

// wasmOutput is the [SessionOutput] of a WASM guest: it packs completion
// records into a fixed buffer and copies their data into a fixed arena,
// and hands both to the host's complete import once per issue call, or
// when either fills. Both buffers are allocated once: the steady-state
// issue path allocates nothing.
type wasmOutput struct {
	log   func(err error)
	recs  []byte // wasmOutRecords records
	n     int    // records in recs
	arena []byte // the pending records' data, at most wasmOutArena bytes
	// code is the first non-OK code the host's complete returned during
	// the issue call in progress.
	code    abi.Code
	flushed abi.Code
	one     [abi.WasmCompletionRecordSize]byte
}

const (
	wasmOutRecords = 256
	wasmOutArena   = 256 << 10
)

var _ SessionOutput = (*wasmOutput)(nil)

func newWasmOutput(log func(error)) *wasmOutput {
	return &wasmOutput{log: log, recs: make([]byte, wasmOutRecords*abi.WasmCompletionRecordSize), arena: make([]byte, 0, wasmOutArena)}
}

func (o *wasmOutput) Complete(id uint64, code abi.Code, data []byte, nTokens int64) {
	if len(data) > cap(o.arena) {
		// Too big for the arena: send it in place, alone.
		o.send()
		o.direct(hostComplete, id, code, data, nTokens)
		return
	}
	if o.n == wasmOutRecords || len(o.arena)+len(data) > cap(o.arena) {
		o.send()
	}
	off := len(o.arena)
	o.arena = append(o.arena, data...)
	ptr := uint32(0)
	if len(data) > 0 {
		ptr = addr(o.arena[off:])
	}
	abi.PutWasmCompletionRecord(o.recs[o.n*abi.WasmCompletionRecordSize:], abi.WasmCompletionRecord{
		ID: id, Status: code, DataPtr: ptr, DataLen: uint32(len(data)), NTokens: nTokens})
	o.n++
}

// FirstToken goes to the host at once: its data is valid now.
func (o *wasmOutput) FirstToken(id uint64, data []byte) {
	o.direct(hostFirstToken, id, abi.OK, data, 1)
}

// direct hands one record with data in place to a host import.
func (o *wasmOutput) direct(f func(ptr unsafe.Pointer, count uint32) uint32, id uint64, code abi.Code, data []byte, nTokens int64) {
	abi.PutWasmCompletionRecord(o.one[:], abi.WasmCompletionRecord{ID: id, Status: code, DataPtr: addr(data), DataLen: uint32(len(data)), NTokens: nTokens})
	o.note(abi.Code(f(unsafe.Pointer(&o.one[0]), 1)))
	runtime.KeepAlive(data)
}

func (o *wasmOutput) Flushed(code abi.Code, message string) {
	o.flushed = code
	if code != abi.OK {
		o.log(fmt.Errorf("flush: %s: %s", code, message))
	}
}

// Violation logs the backend's bug and passes the offending completion
// on: the host, which tracks every id in flight, then fails the run with a
// protocol error naming the id.
func (o *wasmOutput) Violation(id uint64, err error) {
	o.log(fmt.Errorf("backend bug: %w", err))
	o.Complete(id, abi.Internal, []byte(err.Error()), 0)
}

// send hands the pending records to the host.
func (o *wasmOutput) send() {
	if o.n == 0 {
		return
	}
	o.note(abi.Code(hostComplete(unsafe.Pointer(&o.recs[0]), uint32(o.n))))
	o.n, o.arena = 0, o.arena[:0]
}

func (o *wasmOutput) note(c abi.Code) {
	if c != abi.OK && o.code == abi.OK {
		o.code = c
	}
}

// finish sends what is pending and returns the issue call's code.
func (o *wasmOutput) finish() abi.Code {
	o.send()
	c := o.code
	o.code = abi.OK
	return c
}
