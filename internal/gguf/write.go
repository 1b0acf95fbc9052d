package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// KV is one metadata pair. Value is one of uint8, int8, uint16, int16,
// uint32, int32, float32, bool, string, uint64, int64, float64, or a
// slice of one of them (an array).
type KV struct {
	Key   string
	Value any
}

// Tensor is one tensor: its name, its dimensions innermost first (ggml's
// ne[0], ne[1], ...), its element type and its little-endian bytes.
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	Data []byte
}

// File is a GGUF file's metadata, in order, and its tensors, in order.
type File struct {
	KV      []KV
	Tensors []Tensor
}

// Alignment is the file's tensor data alignment: general.alignment when
// the metadata holds it as a uint32, else [DefaultAlignment].
func (f *File) Alignment() uint64 {
	for _, kv := range f.KV {
		if a, ok := kv.Value.(uint32); ok && kv.Key == AlignmentKey && a > 0 {
			return uint64(a)
		}
	}
	return DefaultAlignment
}

// Value is the value of the metadata key, and whether the file has it.
func (f *File) Value(key string) (any, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Tensor is the tensor named name, and whether the file has it.
func (f *File) Tensor(name string) (Tensor, bool) {
	for _, t := range f.Tensors {
		if t.Name == name {
			return t, true
		}
	}
	return Tensor{}, false
}

// WriteTo writes f as a GGUF version 3 file: the header, the metadata
// and the tensor descriptions, then each tensor's data at the next
// multiple of the alignment.
//
// # Errors
//
// A value of a type the format has not, a tensor whose data is not the
// size its dimensions and type give, two tensors of one name, and the
// writer's errors.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	align := f.Alignment()
	offsets := make([]uint64, len(f.Tensors))
	var end uint64
	seen := make(map[string]bool, len(f.Tensors))
	for i, t := range f.Tensors {
		if seen[t.Name] {
			return 0, fmt.Errorf("tensor %q: written twice", t.Name)
		}
		seen[t.Name] = true
		n, err := t.size()
		if err != nil {
			return 0, fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		if uint64(len(t.Data)) != n {
			return 0, fmt.Errorf("tensor %q: %d bytes of data, its dimensions %v need %d", t.Name, len(t.Data), t.Dims, n)
		}
		offsets[i] = pad(end, align)
		end = offsets[i] + n
	}
	cw := &countWriter{w: bufio.NewWriter(w)}
	e := encoder{w: cw}
	e.raw([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(f.Tensors)))
	e.u64(uint64(len(f.KV)))
	for _, kv := range f.KV {
		e.str(kv.Key)
		if err := e.value(kv.Value); err != nil {
			return cw.n, fmt.Errorf("metadata %q: %w", kv.Key, err)
		}
	}
	for i, t := range f.Tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offsets[i])
	}
	e.zeros(pad(uint64(cw.n), align) - uint64(cw.n))
	start := uint64(cw.n)
	for i, t := range f.Tensors {
		e.zeros(start + offsets[i] - uint64(cw.n))
		e.raw(t.Data)
	}
	if e.err == nil {
		e.err = cw.w.Flush()
	}
	return cw.n, e.err
}

// size is the byte size of t's data as its dimensions and type give it.
func (t Tensor) size() (uint64, error) {
	n, err := t.Type.elemSize()
	if err != nil {
		return 0, err
	}
	for _, d := range t.Dims {
		if d != 0 && n > math.MaxUint64/d {
			return 0, errors.New("size overflows")
		}
		n *= d
	}
	return n, nil
}

// pad is n rounded up to a multiple of align.
func pad(n, align uint64) uint64 {
	if r := n % align; r != 0 {
		return n + align - r
	}
	return n
}

type countWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// encoder writes little-endian values, keeping the first error.
type encoder struct {
	w   io.Writer
	err error
	buf [8]byte
}

func (e *encoder) raw(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

func (e *encoder) zeros(n uint64) {
	var z [64]byte
	for n > 0 {
		k := min(n, uint64(len(z)))
		e.raw(z[:k])
		n -= k
	}
}

func (e *encoder) u8(v uint8)   { e.raw([]byte{v}) }
func (e *encoder) u16(v uint16) { binary.LittleEndian.PutUint16(e.buf[:], v); e.raw(e.buf[:2]) }
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.raw(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.raw(e.buf[:8]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.raw([]byte(s)) }

// value writes v's type and v.
func (e *encoder) value(v any) error {
	t, elem, err := typeOf(v)
	if err != nil {
		return err
	}
	e.u32(uint32(t))
	if t != TypeArray {
		e.scalar(v)
		return nil
	}
	e.u32(uint32(elem))
	switch a := v.(type) {
	case []uint8:
		writeArray(e, a)
	case []int8:
		writeArray(e, a)
	case []uint16:
		writeArray(e, a)
	case []int16:
		writeArray(e, a)
	case []uint32:
		writeArray(e, a)
	case []int32:
		writeArray(e, a)
	case []float32:
		writeArray(e, a)
	case []bool:
		writeArray(e, a)
	case []string:
		writeArray(e, a)
	case []uint64:
		writeArray(e, a)
	case []int64:
		writeArray(e, a)
	case []float64:
		writeArray(e, a)
	}
	return nil
}

func writeArray[T any](e *encoder, a []T) {
	e.u64(uint64(len(a)))
	for _, x := range a {
		e.scalar(x)
	}
}

// scalar writes v, whose type typeOf has checked.
func (e *encoder) scalar(v any) {
	switch x := v.(type) {
	case uint8:
		e.u8(x)
	case int8:
		e.u8(uint8(x))
	case uint16:
		e.u16(x)
	case int16:
		e.u16(uint16(x))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case bool:
		if x {
			e.u8(1)
		} else {
			e.u8(0)
		}
	case string:
		e.str(x)
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	}
}

// typeOf is v's value type, and for a slice its element type.
func typeOf(v any) (t, elem ValueType, err error) {
	switch v.(type) {
	case uint8:
		return TypeUint8, 0, nil
	case int8:
		return TypeInt8, 0, nil
	case uint16:
		return TypeUint16, 0, nil
	case int16:
		return TypeInt16, 0, nil
	case uint32:
		return TypeUint32, 0, nil
	case int32:
		return TypeInt32, 0, nil
	case float32:
		return TypeFloat32, 0, nil
	case bool:
		return TypeBool, 0, nil
	case string:
		return TypeString, 0, nil
	case uint64:
		return TypeUint64, 0, nil
	case int64:
		return TypeInt64, 0, nil
	case float64:
		return TypeFloat64, 0, nil
	case []uint8:
		return TypeArray, TypeUint8, nil
	case []int8:
		return TypeArray, TypeInt8, nil
	case []uint16:
		return TypeArray, TypeUint16, nil
	case []int16:
		return TypeArray, TypeInt16, nil
	case []uint32:
		return TypeArray, TypeUint32, nil
	case []int32:
		return TypeArray, TypeInt32, nil
	case []float32:
		return TypeArray, TypeFloat32, nil
	case []bool:
		return TypeArray, TypeBool, nil
	case []string:
		return TypeArray, TypeString, nil
	case []uint64:
		return TypeArray, TypeUint64, nil
	case []int64:
		return TypeArray, TypeInt64, nil
	case []float64:
		return TypeArray, TypeFloat64, nil
	}
	return 0, 0, fmt.Errorf("value of type %T not supported", v)
}
