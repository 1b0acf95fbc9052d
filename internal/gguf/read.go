package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// MaxDims is the most dimensions a tensor may have (ggml's GGML_MAX_DIMS).
const MaxDims = 4

// Read parses a GGUF version 3 file held in b. The tensors' Data are
// slices of b.
//
// # Errors
//
// A wrong magic or version, a truncated file, a value type the format has
// not (or an array of arrays, which this package does not read), a tensor
// of a type it does not size, more than [MaxDims] dimensions, an offset
// that is not aligned, data past the end, two keys or tensors of one name.
func Read(b []byte) (*File, error) {
	d := decoder{b: b}
	if string(d.take(4)) != Magic {
		return nil, errors.New("not a GGUF file: bad magic")
	}
	if v := d.u32(); d.err == nil && v != Version {
		return nil, fmt.Errorf("GGUF version %d: want %d", v, Version)
	}
	nt, nkv := d.u64(), d.u64()
	if d.err != nil {
		return nil, d.err
	}
	// Every pair takes at least 12 bytes, every tensor description 24.
	if nkv > uint64(d.left())/12 || nt > uint64(d.left())/24 {
		return nil, errors.New("counts exceed the file")
	}
	f := &File{KV: make([]KV, 0, nkv), Tensors: make([]Tensor, 0, nt)}
	keys := make(map[string]bool, nkv)
	for range nkv {
		k := d.str()
		v := d.value()
		if d.err != nil {
			return nil, fmt.Errorf("metadata %q: %w", k, d.err)
		}
		if keys[k] {
			return nil, fmt.Errorf("metadata %q: twice", k)
		}
		keys[k] = true
		f.KV = append(f.KV, KV{Key: k, Value: v})
	}
	offsets := make([]uint64, 0, nt)
	names := make(map[string]bool, nt)
	for range nt {
		t := Tensor{Name: d.str()}
		nd := d.u32()
		if d.err == nil && nd > MaxDims {
			return nil, fmt.Errorf("tensor %q: %d dimensions, at most %d", t.Name, nd, MaxDims)
		}
		for range nd {
			t.Dims = append(t.Dims, d.u64())
		}
		t.Type = TensorType(d.u32())
		offsets = append(offsets, d.u64())
		if d.err != nil {
			return nil, fmt.Errorf("tensor %q: %w", t.Name, d.err)
		}
		if names[t.Name] {
			return nil, fmt.Errorf("tensor %q: twice", t.Name)
		}
		names[t.Name] = true
		f.Tensors = append(f.Tensors, t)
	}
	align := f.Alignment()
	start := pad(uint64(d.off), align)
	for i := range f.Tensors {
		t := &f.Tensors[i]
		n, err := t.size()
		if err != nil {
			return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		off := offsets[i]
		if off%align != 0 {
			return nil, fmt.Errorf("tensor %q: offset %d not a multiple of %d", t.Name, off, align)
		}
		if off > uint64(len(b)) || start > uint64(len(b))-off || n > uint64(len(b))-start-off {
			return nil, fmt.Errorf("tensor %q: data past the end of the file", t.Name)
		}
		t.Data = b[start+off : start+off+n]
	}
	return f, nil
}

// decoder reads little-endian values from b, keeping the first error.
type decoder struct {
	b   []byte
	off int
	err error
}

var errTruncated = errors.New("truncated")

func (d *decoder) left() int { return len(d.b) - d.off }

func (d *decoder) take(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(d.left()) {
		d.err = errTruncated
		return nil
	}
	p := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return p
}

func (d *decoder) u8() uint8 {
	if p := d.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if p := d.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if p := d.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if p := d.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) str() string { return string(d.take(d.u64())) }

// value reads a type and a value of it.
func (d *decoder) value() any {
	t := ValueType(d.u32())
	if d.err != nil {
		return nil
	}
	if t != TypeArray {
		return d.scalar(t)
	}
	elem, n := ValueType(d.u32()), d.u64()
	if d.err != nil {
		return nil
	}
	size := elem.size()
	switch {
	case elem == TypeArray:
		d.err = errors.New("arrays of arrays not supported")
		return nil
	case size < 0:
		d.err = fmt.Errorf("array of value type %d", uint32(elem))
		return nil
	case elem == TypeString:
		size = 8 // each string's length
	}
	if n > uint64(d.left()/size) {
		d.err = errTruncated
		return nil
	}
	switch elem {
	case TypeUint8:
		return readArray(d, n, (*decoder).u8)
	case TypeInt8:
		return readArray(d, n, func(d *decoder) int8 { return int8(d.u8()) })
	case TypeUint16:
		return readArray(d, n, (*decoder).u16)
	case TypeInt16:
		return readArray(d, n, func(d *decoder) int16 { return int16(d.u16()) })
	case TypeUint32:
		return readArray(d, n, (*decoder).u32)
	case TypeInt32:
		return readArray(d, n, func(d *decoder) int32 { return int32(d.u32()) })
	case TypeFloat32:
		return readArray(d, n, func(d *decoder) float32 { return math.Float32frombits(d.u32()) })
	case TypeBool:
		return readArray(d, n, (*decoder).boolean)
	case TypeString:
		return readArray(d, n, (*decoder).str)
	case TypeUint64:
		return readArray(d, n, (*decoder).u64)
	case TypeInt64:
		return readArray(d, n, func(d *decoder) int64 { return int64(d.u64()) })
	default: // TypeFloat64
		return readArray(d, n, func(d *decoder) float64 { return math.Float64frombits(d.u64()) })
	}
}

func readArray[T any](d *decoder, n uint64, read func(*decoder) T) []T {
	a := make([]T, n)
	for i := range a {
		a[i] = read(d)
	}
	return a
}

func (d *decoder) boolean() bool {
	v := d.u8()
	if v > 1 && d.err == nil {
		d.err = fmt.Errorf("bool %d", v)
	}
	return v == 1
}

// scalar reads one value of type t.
func (d *decoder) scalar(t ValueType) any {
	switch t {
	case TypeUint8:
		return d.u8()
	case TypeInt8:
		return int8(d.u8())
	case TypeUint16:
		return d.u16()
	case TypeInt16:
		return int16(d.u16())
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		return int32(d.u32())
	case TypeFloat32:
		return math.Float32frombits(d.u32())
	case TypeBool:
		return d.boolean()
	case TypeString:
		return d.str()
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		return int64(d.u64())
	case TypeFloat64:
		return math.Float64frombits(d.u64())
	}
	d.err = fmt.Errorf("value type %d", uint32(t))
	return nil
}
