package onnxpb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrTensorData is wrapped by the errors of the Tensor data accessors.
var ErrTensorData = errors.New("bad tensor data")

// MaxElements bounds the element count of any one tensor (2^31-1, the
// largest a 32-bit WASM guest could index as float32 bytes is far less;
// this bound only keeps arithmetic in range).
const MaxElements = math.MaxInt32

// Elements returns the number of elements dims describes.
//
// # Errors
//
// A negative dimension, a rank above [MaxRank] or a product above
// [MaxElements] wraps [ErrTensorData].
func Elements(dims []int64) (int, error) {
	if len(dims) > MaxRank {
		return 0, fmt.Errorf("%w: rank %d exceeds %d", ErrTensorData, len(dims), MaxRank)
	}
	n := int64(1)
	for _, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("%w: negative dimension %d in %v", ErrTensorData, d, dims)
		}
		if d != 0 && n > MaxElements/d {
			return 0, fmt.Errorf("%w: shape %v has more than %d elements", ErrTensorData, dims, MaxElements)
		}
		n *= d
	}
	return int(n), nil
}

// Elements returns the number of elements of t's shape; see [Elements].
func (t *Tensor) Elements() (int, error) { return Elements(t.Dims) }

// inline reports an error when t's data is not stored in the message.
func (t *Tensor) inline() error {
	switch {
	case t.External:
		return fmt.Errorf("%w: tensor %q: its data lies in external file %q, not read", ErrTensorData, t.Name, t.ExternalData.Location)
	case t.Segmented:
		return fmt.Errorf("%w: tensor %q: segmented tensors are not supported", ErrTensorData, t.Name)
	}
	return nil
}

// count checks that t holds exactly n elements in one of the fields:
// raw data with size bytes per element, or typed of typedLen elements.
func (t *Tensor) count(n, size, typedLen int) error {
	if t.HasRaw {
		if typedLen != 0 {
			return fmt.Errorf("%w: tensor %q has both raw and typed data", ErrTensorData, t.Name)
		}
		if len(t.Raw) != n*size {
			return fmt.Errorf("%w: tensor %q: %d raw bytes for %d elements of %v", ErrTensorData, t.Name, len(t.Raw), n, t.DataType)
		}
		return nil
	}
	if typedLen != n {
		return fmt.Errorf("%w: tensor %q: %d values for %d elements of shape %v", ErrTensorData, t.Name, typedLen, n, t.Dims)
	}
	return nil
}

func (t *Tensor) prepare(want ...DataType) (int, error) {
	ok := false
	for _, w := range want {
		ok = ok || t.DataType == w
	}
	if !ok {
		return 0, fmt.Errorf("%w: tensor %q is %v, want %v", ErrTensorData, t.Name, t.DataType, want)
	}
	if err := t.inline(); err != nil {
		return 0, err
	}
	return t.Elements()
}

// Float32s returns a copy of a FLOAT tensor's elements.
//
// # Errors
//
// Wraps [ErrTensorData] when t is not FLOAT, has external or segmented
// data, or holds a number of elements other than its shape's.
func (t *Tensor) Float32s() ([]float32, error) {
	n, err := t.prepare(Float)
	if err != nil {
		return nil, err
	}
	if err := t.count(n, 4, len(t.FloatData)); err != nil {
		return nil, err
	}
	out := make([]float32, n)
	if !t.HasRaw {
		copy(out, t.FloatData)
		return out, nil
	}
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Raw[4*i:]))
	}
	return out, nil
}

// Int64s returns a copy of an INT64 or INT32 tensor's elements, widened
// to int64.
//
// # Errors
//
// As [Tensor.Float32s].
func (t *Tensor) Int64s() ([]int64, error) {
	n, err := t.prepare(Int64, Int32)
	if err != nil {
		return nil, err
	}
	out := make([]int64, n)
	if t.DataType == Int32 {
		if err := t.count(n, 4, len(t.Int32Data)); err != nil {
			return nil, err
		}
		for i := range out {
			if t.HasRaw {
				out[i] = int64(int32(binary.LittleEndian.Uint32(t.Raw[4*i:])))
			} else {
				out[i] = int64(t.Int32Data[i])
			}
		}
		return out, nil
	}
	if err := t.count(n, 8, len(t.Int64Data)); err != nil {
		return nil, err
	}
	if !t.HasRaw {
		copy(out, t.Int64Data)
		return out, nil
	}
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.Raw[8*i:]))
	}
	return out, nil
}

// Bytes returns a copy of a UINT8, INT8 or BOOL tensor's elements, one
// byte each (INT8 as two's complement).
//
// # Errors
//
// As [Tensor.Float32s]; a typed value out of the byte range is an error.
func (t *Tensor) Bytes() ([]byte, error) {
	n, err := t.prepare(Uint8, Int8, Bool)
	if err != nil {
		return nil, err
	}
	if err := t.count(n, 1, len(t.Int32Data)); err != nil {
		return nil, err
	}
	if t.HasRaw {
		return append([]byte(nil), t.Raw...), nil
	}
	out := make([]byte, n)
	for i, v := range t.Int32Data {
		if v < -128 || v > 255 {
			return nil, fmt.Errorf("%w: tensor %q: value %d out of byte range", ErrTensorData, t.Name, v)
		}
		out[i] = byte(v)
	}
	return out, nil
}
