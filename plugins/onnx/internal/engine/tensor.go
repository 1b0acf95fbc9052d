package engine

import (
	"fmt"
	"strings"
)

// DType is a tensor element type. The values are ONNX's
// TensorProto.DataType numbers, so engines can convert with a cast.
type DType int32

// The element types the engines exchange through Run.
const (
	Float32 DType = 1
	Uint8   DType = 2
	Int8    DType = 3
	Int32   DType = 6
	Int64   DType = 7
	// Bool is one byte, 0 or 1 (a merged decoder's use_cache_branch).
	Bool DType = 9
)

// Size is the size of one element in bytes, or 0 for an unknown type.
func (d DType) Size() int {
	switch d {
	case Float32, Int32:
		return 4
	case Uint8, Int8, Bool:
		return 1
	case Int64:
		return 8
	default:
		return 0
	}
}

// String names the type as ONNX does ("float", "uint8", ...).
func (d DType) String() string {
	switch d {
	case Float32:
		return "float"
	case Uint8:
		return "uint8"
	case Int8:
		return "int8"
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Bool:
		return "bool"
	default:
		return fmt.Sprintf("dtype(%d)", int32(d))
	}
}

// TensorDesc describes a graph input or output. In Shape, -1 marks a
// dimension the model leaves free (normally the batch dimension).
type TensorDesc struct {
	Name  string
	DType DType
	Shape []int64
}

// String formats the descriptor as name:dtype[d0,d1,...], with ? for free
// dimensions.
func (d TensorDesc) String() string {
	var b strings.Builder
	b.WriteString(d.Name)
	b.WriteByte(':')
	b.WriteString(d.DType.String())
	b.WriteByte('[')
	for i, n := range d.Shape {
		if i > 0 {
			b.WriteByte(',')
		}
		if n < 0 {
			b.WriteByte('?')
		} else {
			fmt.Fprint(&b, n)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// Tensor is a tensor passed to or returned from [Session.Run]: a concrete
// shape and the raw little-endian bytes of its elements.
type Tensor struct {
	Name  string
	DType DType
	Shape []int64
	Data  []byte
}

// Elements is the number of elements Shape describes, or -1 when a
// dimension is negative or the product overflows int.
func Elements(shape []int64) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d != 0 && n > int(^uint(0)>>1)/int(d) {
			return -1
		}
		n *= int(d)
	}
	return n
}

// Check reports whether t matches desc: same dtype, same rank, fixed
// dimensions equal, free dimensions at least 1 and at most maxBatch (when
// maxBatch > 0), and a Data length equal to the shape's byte size. The
// error wraps [ErrInput].
func (desc TensorDesc) Check(t Tensor, maxBatch int) error { return desc.check(t, maxBatch, false) }

// CheckEmpty is Check with free dimensions past the first allowed to be
// 0: an empty sequence, as a key-value cache's past at the first step of
// a generation, for an engine that runs empty tensors.
func (desc TensorDesc) CheckEmpty(t Tensor, maxBatch int) error { return desc.check(t, maxBatch, true) }

func (desc TensorDesc) check(t Tensor, maxBatch int, empty bool) error {
	if t.DType != desc.DType {
		return fmt.Errorf("%w: input %q: dtype %v, model wants %v", ErrInput, desc.Name, t.DType, desc.DType)
	}
	if len(t.Shape) != len(desc.Shape) {
		return fmt.Errorf("%w: input %q: rank %d, model wants %d (%v)", ErrInput, desc.Name, len(t.Shape), len(desc.Shape), desc)
	}
	for i, want := range desc.Shape {
		got := t.Shape[i]
		switch {
		case want >= 0 && got != want:
			return fmt.Errorf("%w: input %q: dim %d is %d, model wants %d (%v)", ErrInput, desc.Name, i, got, want, desc)
		case want < 0 && got == 0 && empty && i > 0:
		case want < 0 && (got < 1 || (maxBatch > 0 && got > int64(maxBatch))):
			return fmt.Errorf("%w: input %q: free dim %d is %d, want 1..%d", ErrInput, desc.Name, i, got, maxBatch)
		}
	}
	n := Elements(t.Shape)
	if n < 0 || n > len(t.Data)/max(desc.DType.Size(), 1) || n*desc.DType.Size() != len(t.Data) {
		return fmt.Errorf("%w: input %q: %d data bytes for shape %v of %v", ErrInput, desc.Name, len(t.Data), t.Shape, desc.DType)
	}
	return nil
}
