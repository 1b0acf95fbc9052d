//go:build wasip1

// Command nnguest is an ABI v1 WASM guest that runs its model through the
// host's wasi-nn import (wasi_ephemeral_nn, witx ABI), for the host's
// tests: it loads the LoadRequest's model bytes as an ONNX graph, keeps
// the samples LoadSamples gives it, and answers each issue call with one
// batched inference: it concatenates the samples into one float32 input
// of shape [n, len/4], computes, and splits the output evenly between the
// samples. Any wasi-nn error fails the call with a message naming the
// function and its error code.
//
// It is written against abi only (no SDK, no protobuf: the few messages it
// reads and writes are decoded and encoded by hand). The tests build it
// with GOOS=wasip1 GOARCH=wasm -buildmode=c-shared.
package main

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/abi"
)

//go:wasmimport mlperf_host_v1 reply
func reply(ptr, n uint32)

//go:wasmimport mlperf_host_v1 complete
func complete(ptr, count uint32) uint32

//go:wasmimport wasi_ephemeral_nn load
func nnLoad(builders, n, encoding, target, graphOut uint32) uint32

//go:wasmimport wasi_ephemeral_nn init_execution_context
func nnInit(graph, ctxOut uint32) uint32

//go:wasmimport wasi_ephemeral_nn set_input
func nnSetInput(ctx, index, tensor uint32) uint32

//go:wasmimport wasi_ephemeral_nn compute
func nnCompute(ctx uint32) uint32

//go:wasmimport wasi_ephemeral_nn get_output
func nnGetOutput(ctx, index, out, outMax, written uint32) uint32

// The wasi-nn enums this guest uses.
const (
	encodingONNX = 1
	targetCPU    = 0
	typeF32      = 1
)

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

// infoResponse is InfoResponse{abi_major: 1, name: "nnguest", version:
// "1.0", max_batch: 64}.
var infoResponse = []byte{0x10, 0x01, 0x22, 0x07, 'n', 'n', 'g', 'u', 'e', 's', 't', 0x2a, 0x03, '1', '.', '0', 0x38, 64}

//go:wasmexport mlperf_v1_info
func info(ptr, n uint32) uint32 {
	reply(addr(infoResponse), uint32(len(infoResponse)))
	return uint32(abi.OK)
}

var (
	graph, execCtx uint32
	samples        = map[uint64][]byte{}
)

// fail replies a Status{code, message} in field 1 of the call's response
// and returns code.
func fail(code abi.Code, format string, args ...any) uint32 {
	msg := fmt.Sprintf(format, args...)
	st := append([]byte{0x08, byte(code), 0x12}, varint(uint64(len(msg)))...)
	st = append(st, msg...)
	resp := append(append([]byte{0x0a}, varint(uint64(len(st)))...), st...)
	reply(addr(resp), uint32(len(resp)))
	return uint32(code)
}

//go:wasmexport mlperf_v1_load
func load(ptr, n uint32) uint32 {
	var model []byte
	fields(view(ptr, n), func(num int, b []byte) {
		if num == 2 { // model_bytes
			model = b
		}
	})
	// One builder: the model bytes.
	builders := make([]byte, 8)
	binary.LittleEndian.PutUint32(builders, addr(model))
	binary.LittleEndian.PutUint32(builders[4:], uint32(len(model)))
	out := make([]byte, 4)
	if e := nnLoad(addr(builders), 1, encodingONNX, targetCPU, addr(out)); e != 0 {
		return fail(abi.InvalidArgument, "wasi-nn load: error %d", e)
	}
	graph = binary.LittleEndian.Uint32(out)
	if e := nnInit(graph, addr(out)); e != 0 {
		return fail(abi.Internal, "wasi-nn init_execution_context: error %d", e)
	}
	execCtx = binary.LittleEndian.Uint32(out)
	return uint32(abi.OK)
}

//go:wasmexport mlperf_v1_load_samples
func loadSamples(ptr, n uint32) uint32 {
	fields(view(ptr, n), func(num int, ref []byte) {
		if num != 2 { // samples
			return
		}
		var index uint64
		var data []byte
		fields(ref, func(num int, b []byte) {
			switch num {
			case 1:
				index, _ = uvarint(b)
			case 4:
				data = b
			}
		})
		samples[index] = append([]byte(nil), data...)
	})
	return uint32(abi.OK)
}

//go:wasmexport mlperf_v1_unload_samples
func unloadSamples(ptr, n uint32) uint32 { return uint32(abi.OK) }

//go:wasmexport mlperf_v1_close
func closeBackend(ptr, n uint32) uint32 { return uint32(abi.OK) }

var (
	input, output, dims, tensor, written, recs []byte
)

//go:wasmexport mlperf_v1_issue
func issue(ptr, count uint32) uint32 {
	rs, err := abi.ParseIssueRecords(view(ptr, count*abi.IssueRecordSize))
	if err != nil || rs.Len() == 0 {
		return uint32(abi.InvalidArgument)
	}
	n := rs.Len()
	input = input[:0]
	per := 0
	for i := range n {
		s, ok := samples[rs.At(i).Index]
		if !ok {
			return fail(abi.InvalidArgument, "sample %d was not loaded", rs.At(i).Index)
		}
		per = len(s)
		input = append(input, s...)
	}
	// The batch as one [n, per/4] float32 tensor.
	dims = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(dims[:0], uint32(n)), uint32(per/4))
	tensor = make([]byte, 20)
	binary.LittleEndian.PutUint32(tensor[0:], addr(dims))
	binary.LittleEndian.PutUint32(tensor[4:], 2)
	tensor[8] = typeF32
	binary.LittleEndian.PutUint32(tensor[12:], addr(input))
	binary.LittleEndian.PutUint32(tensor[16:], uint32(len(input)))
	if e := nnSetInput(execCtx, 0, addr(tensor)); e != 0 {
		return fail(abi.Internal, "wasi-nn set_input: error %d", e)
	}
	if e := nnCompute(execCtx); e != 0 {
		return fail(abi.Internal, "wasi-nn compute: error %d", e)
	}
	if cap(output) < n*4096 {
		output = make([]byte, n*4096)
	}
	output = output[:n*4096]
	written = make([]byte, 4)
	if e := nnGetOutput(execCtx, 0, addr(output), uint32(len(output)), addr(written)); e != 0 {
		return fail(abi.Internal, "wasi-nn get_output: error %d", e)
	}
	each := int(binary.LittleEndian.Uint32(written)) / n
	recs = recs[:0]
	for i := range n {
		var rec [abi.WasmCompletionRecordSize]byte
		abi.PutWasmCompletionRecord(rec[:], abi.WasmCompletionRecord{ID: rs.At(i).ID, Status: abi.OK,
			DataPtr: addr(output) + uint32(i*each), DataLen: uint32(each)})
		recs = append(recs, rec[:]...)
	}
	return complete(addr(recs), uint32(n))
}

// fields calls fn with each length-delimited field of a protobuf message
// (and the raw varint bytes of varint fields), by field number.
func fields(b []byte, fn func(num int, data []byte)) {
	for len(b) > 0 {
		key, n := uvarint(b)
		b = b[n:]
		switch key & 7 {
		case 0:
			_, m := uvarint(b)
			fn(int(key>>3), b[:m])
			b = b[m:]
		case 2:
			l, m := uvarint(b)
			fn(int(key>>3), b[m:m+int(l)])
			b = b[m+int(l):]
		default:
			return
		}
	}
}

func uvarint(b []byte) (uint64, int) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, len(b)
	}
	return v, n
}

func varint(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func main() {}
