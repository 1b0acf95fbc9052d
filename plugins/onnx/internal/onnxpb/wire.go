package onnxpb

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("malformed onnx protobuf")

// DecodeError reports where decoding failed: Path is the field path from
// the ModelProto root, e.g. "graph.node[3].attribute[1].t.dims".
type DecodeError struct {
	Path string
	Err  error
}

// Error implements error.
func (e *DecodeError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%v: %v", ErrMalformed, e.Err)
	}
	return fmt.Sprintf("%v: %s: %v", ErrMalformed, e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformed) true.
func (e *DecodeError) Is(target error) bool { return target == ErrMalformed }

// at prefixes the path of a DecodeError (or wraps a plain error) with elem.
func at(elem string, err error) error {
	if err == nil {
		return nil
	}
	var de *DecodeError
	if errors.As(err, &de) {
		if elem == "" {
			return de
		}
		if de.Path == "" {
			return &DecodeError{Path: elem, Err: de.Err}
		}
		return &DecodeError{Path: elem + "." + de.Path, Err: de.Err}
	}
	return &DecodeError{Path: elem, Err: err}
}

// atIndex is at for an element of a repeated field.
func atIndex(elem string, i int, err error) error {
	return at(fmt.Sprintf("%s[%d]", elem, i), err)
}

// field is one decoded key/value pair of a message.
type field struct {
	num protowire.Number
	typ protowire.Type
	// v holds varint, fixed32 and fixed64 values.
	v uint64
	// b holds length-delimited values; it aliases the input.
	b []byte
}

// forEach calls fn for each field of the message encoded in b, in order.
// Groups (deprecated, absent from onnx.proto) are rejected.
func forEach(b []byte, fn func(f field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			return fmt.Errorf("field %d: unsupported wire type %d", num, typ)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

func (f field) want(t protowire.Type) error {
	if f.typ != t {
		return fmt.Errorf("field %d: wire type %d, want %d", f.num, f.typ, t)
	}
	return nil
}

func (f field) str() (string, error) {
	if err := f.want(protowire.BytesType); err != nil {
		return "", err
	}
	return string(f.b), nil
}

func (f field) bytes() ([]byte, error) {
	if err := f.want(protowire.BytesType); err != nil {
		return nil, err
	}
	return f.b, nil
}

func (f field) int64() (int64, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return 0, err
	}
	return int64(f.v), nil
}

// int32 decodes an int32 or enum field: protobuf sign-extends negative
// values to 64 bits, so a value outside int32 is malformed.
func (f field) int32() (int32, error) {
	v, err := f.int64()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("field %d: %d overflows int32", f.num, v)
	}
	return int32(v), nil
}

func (f field) float32() (float32, error) {
	if err := f.want(protowire.Fixed32Type); err != nil {
		return 0, err
	}
	return math.Float32frombits(uint32(f.v)), nil
}

// appendVarints appends a repeated varint field, packed or not.
func appendVarints(dst []uint64, f field) ([]uint64, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(dst, f.v), nil
	case protowire.BytesType:
		b := f.b
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return dst, fmt.Errorf("field %d: packed: %w", f.num, protowire.ParseError(n))
			}
			dst = append(dst, v)
			b = b[n:]
		}
		return dst, nil
	default:
		return dst, fmt.Errorf("field %d: wire type %d for a repeated varint", f.num, f.typ)
	}
}

func appendInt64s(dst []int64, f field) ([]int64, error) {
	if f.typ == protowire.VarintType {
		return append(dst, int64(f.v)), nil
	}
	vs, err := appendVarints(nil, f)
	for _, v := range vs {
		dst = append(dst, int64(v))
	}
	return dst, err
}

func appendInt32s(dst []int32, f field) ([]int32, error) {
	if f.typ == protowire.VarintType {
		v, err := f.int32()
		return append(dst, v), err
	}
	vs, err := appendVarints(nil, f)
	if err != nil {
		return dst, err
	}
	for _, v := range vs {
		if int64(v) < math.MinInt32 || int64(v) > math.MaxInt32 {
			return dst, fmt.Errorf("field %d: %d overflows int32", f.num, int64(v))
		}
		dst = append(dst, int32(int64(v)))
	}
	return dst, nil
}

func appendUint64s(dst []uint64, f field) ([]uint64, error) { return appendVarints(dst, f) }

// appendFixed appends a repeated fixed-width field of size bytes per
// element (4 or 8), packed or not, through conv.
func appendFixed[T any](dst []T, f field, size int, conv func(uint64) T) ([]T, error) {
	single := protowire.Fixed32Type
	if size == 8 {
		single = protowire.Fixed64Type
	}
	switch f.typ {
	case single:
		return append(dst, conv(f.v)), nil
	case protowire.BytesType:
		if len(f.b)%size != 0 {
			return dst, fmt.Errorf("field %d: packed length %d is not a multiple of %d", f.num, len(f.b), size)
		}
		dst = growCap(dst, len(f.b)/size)
		for b := f.b; len(b) > 0; b = b[size:] {
			var v uint64
			if size == 4 {
				x, _ := protowire.ConsumeFixed32(b)
				v = uint64(x)
			} else {
				v, _ = protowire.ConsumeFixed64(b)
			}
			dst = append(dst, conv(v))
		}
		return dst, nil
	default:
		return dst, fmt.Errorf("field %d: wire type %d for a repeated fixed%d", f.num, f.typ, size*8)
	}
}

// growCap makes room for n more elements; n is bounded by bytes present.
func growCap[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	out := make([]T, len(s), len(s)+n)
	copy(out, s)
	return out
}

func appendFloat32s(dst []float32, f field) ([]float32, error) {
	return appendFixed(dst, f, 4, func(v uint64) float32 { return math.Float32frombits(uint32(v)) })
}

func appendFloat64s(dst []float64, f field) ([]float64, error) {
	return appendFixed(dst, f, 8, math.Float64frombits)
}
