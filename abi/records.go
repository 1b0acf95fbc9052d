package abi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Hot-path payloads are packed little-endian records, not protobuf
// messages: one query of n samples is n fixed-size records in one bytes
// field, decoded in O(1) per record without allocation.

// IssueFlag is a bit set of per-sample flags in an [IssueRecord].
type IssueFlag uint32

// Issue flags of ABI v1. Unknown bits are ignored.
const (
	// FlagWantOutput: the LoadGen will log this response (accuracy mode or a
	// sampled audit response), so the plugin must return its output bytes.
	// Without it the plugin may return none.
	FlagWantOutput IssueFlag = 1 << iota
)

// IssueRecord is one sample of an issued query.
//
// Layout (24 bytes, little-endian):
//
//	0  u64 id      response id, echoed exactly once in a completion
//	8  u64 index   sample index in the data set
//	16 u32 flags   IssueFlag bits
//	20 u32 reserved, zero
type IssueRecord struct {
	ID    uint64
	Index uint64
	Flags IssueFlag
}

// IssueRecordSize is the encoded size of an [IssueRecord].
const IssueRecordSize = 24

// PutIssueRecord encodes r into b[:IssueRecordSize].
func PutIssueRecord(b []byte, r IssueRecord) {
	_ = b[IssueRecordSize-1]
	binary.LittleEndian.PutUint64(b[0:], r.ID)
	binary.LittleEndian.PutUint64(b[8:], r.Index)
	binary.LittleEndian.PutUint32(b[16:], uint32(r.Flags))
	binary.LittleEndian.PutUint32(b[20:], 0)
}

// AppendIssueRecord appends the encoding of r to dst.
func AppendIssueRecord(dst []byte, r IssueRecord) []byte {
	n := len(dst)
	dst = slices.Grow(dst, IssueRecordSize)[:n+IssueRecordSize]
	PutIssueRecord(dst[n:], r)
	return dst
}

// IssueRecords is a validated run of encoded issue records.
type IssueRecords []byte

// ErrMalformed is wrapped by every error about a malformed frame or record.
var ErrMalformed = errors.New("malformed frame")

// ParseIssueRecords checks that b holds whole issue records.
func ParseIssueRecords(b []byte) (IssueRecords, error) {
	if len(b)%IssueRecordSize != 0 {
		return nil, fmt.Errorf("%w: issue frame of %d bytes is not a multiple of %d", ErrMalformed, len(b), IssueRecordSize)
	}
	return IssueRecords(b), nil
}

// Len returns the number of records.
func (rs IssueRecords) Len() int { return len(rs) / IssueRecordSize }

// At returns record i; 0 <= i < Len().
func (rs IssueRecords) At(i int) IssueRecord {
	b := rs[i*IssueRecordSize : (i+1)*IssueRecordSize]
	return IssueRecord{
		ID:    binary.LittleEndian.Uint64(b[0:]),
		Index: binary.LittleEndian.Uint64(b[8:]),
		Flags: IssueFlag(binary.LittleEndian.Uint32(b[16:])),
	}
}

// CompletionRecord is one finished sample on the subprocess session
// stream. Its data follows in the Completions message's data field, the
// records' data concatenated in record order. For a failed sample (Status
// not OK) the data is the UTF-8 error message.
//
// Layout (24 bytes, little-endian):
//
//	0  u64 id
//	8  u32 status    Code
//	12 u32 data_len
//	16 i64 n_tokens  output tokens (LLM backends), else 0
type CompletionRecord struct {
	ID      uint64
	Status  Code
	DataLen uint32
	NTokens int64
}

// CompletionRecordSize is the encoded size of a [CompletionRecord].
const CompletionRecordSize = 24

// AppendCompletion appends one completion to a Completions message's
// records and data and returns both.
func AppendCompletion(records, data []byte, id uint64, status Code, payload []byte, nTokens int64) ([]byte, []byte) {
	n := len(records)
	records = slices.Grow(records, CompletionRecordSize)[:n+CompletionRecordSize]
	b := records[n:]
	binary.LittleEndian.PutUint64(b[0:], id)
	binary.LittleEndian.PutUint32(b[8:], uint32(status))
	binary.LittleEndian.PutUint32(b[12:], uint32(len(payload)))
	binary.LittleEndian.PutUint64(b[16:], uint64(nTokens))
	return records, append(data, payload...)
}

// Completion is one decoded completion with its data.
type Completion struct {
	CompletionRecord
	// Data aliases the message's data field.
	Data []byte
}

// Completions is a validated Completions message: records whose data
// lengths add up to exactly the data field.
type Completions struct {
	records []byte
	data    []byte
}

// ParseCompletions validates a Completions message's fields.
func ParseCompletions(records, data []byte) (Completions, error) {
	if len(records)%CompletionRecordSize != 0 {
		return Completions{}, fmt.Errorf("%w: completion records of %d bytes are not a multiple of %d",
			ErrMalformed, len(records), CompletionRecordSize)
	}
	var total uint64
	for off := 0; off < len(records); off += CompletionRecordSize {
		total += uint64(binary.LittleEndian.Uint32(records[off+12:]))
	}
	if total != uint64(len(data)) {
		return Completions{}, fmt.Errorf("%w: completion records claim %d data bytes, message has %d",
			ErrMalformed, total, len(data))
	}
	return Completions{records: records, data: data}, nil
}

// Len returns the number of completions.
func (c Completions) Len() int { return len(c.records) / CompletionRecordSize }

// All calls yield with each completion in order until it returns false.
func (c Completions) All(yield func(Completion) bool) {
	data := c.data
	for off := 0; off < len(c.records); off += CompletionRecordSize {
		b := c.records[off : off+CompletionRecordSize]
		r := CompletionRecord{
			ID:      binary.LittleEndian.Uint64(b[0:]),
			Status:  Code(binary.LittleEndian.Uint32(b[8:])),
			DataLen: binary.LittleEndian.Uint32(b[12:]),
			NTokens: int64(binary.LittleEndian.Uint64(b[16:])),
		}
		if !yield(Completion{CompletionRecord: r, Data: data[:r.DataLen:r.DataLen]}) {
			return
		}
		data = data[r.DataLen:]
	}
}

// WasmCompletionRecord is one finished sample passed by a WASM guest to the
// host import [ImportComplete] (or [ImportFirstToken]). Its data stays in
// guest memory at data_ptr; the host copies it before the import returns.
//
// Layout (32 bytes, little-endian):
//
//	0  u64 id
//	8  u32 status    Code
//	12 u32 data_ptr  guest address of the output (or error message)
//	16 u32 data_len
//	20 u32 reserved, zero
//	24 i64 n_tokens
type WasmCompletionRecord struct {
	ID      uint64
	Status  Code
	DataPtr uint32
	DataLen uint32
	NTokens int64
}

// WasmCompletionRecordSize is the encoded size of a [WasmCompletionRecord].
const WasmCompletionRecordSize = 32

// PutWasmCompletionRecord encodes r into b[:WasmCompletionRecordSize].
func PutWasmCompletionRecord(b []byte, r WasmCompletionRecord) {
	_ = b[WasmCompletionRecordSize-1]
	binary.LittleEndian.PutUint64(b[0:], r.ID)
	binary.LittleEndian.PutUint32(b[8:], uint32(r.Status))
	binary.LittleEndian.PutUint32(b[12:], r.DataPtr)
	binary.LittleEndian.PutUint32(b[16:], r.DataLen)
	binary.LittleEndian.PutUint32(b[20:], 0)
	binary.LittleEndian.PutUint64(b[24:], uint64(r.NTokens))
}

// WasmCompletionRecordAt decodes record i of b. The caller checks that b
// holds at least i+1 records.
func WasmCompletionRecordAt(b []byte, i int) WasmCompletionRecord {
	r := b[i*WasmCompletionRecordSize : (i+1)*WasmCompletionRecordSize]
	return WasmCompletionRecord{
		ID:      binary.LittleEndian.Uint64(r[0:]),
		Status:  Code(binary.LittleEndian.Uint32(r[8:])),
		DataPtr: binary.LittleEndian.Uint32(r[12:]),
		DataLen: binary.LittleEndian.Uint32(r[16:]),
		NTokens: int64(binary.LittleEndian.Uint64(r[24:])),
	}
}
