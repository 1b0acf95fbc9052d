package gguf

import "fmt"

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// Version is the GGUF version this package writes and reads.
const Version = 3

// DefaultAlignment is the alignment of tensor data when the metadata
// holds no general.alignment.
const DefaultAlignment = 32

// AlignmentKey is the metadata key that sets the tensor data alignment.
const AlignmentKey = "general.alignment"

// ValueType is the type of a metadata value, as the file numbers it.
type ValueType uint32

// The metadata value types.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// size is the encoded size of a scalar of type t; 0 for strings and
// arrays, -1 for a type the format does not have.
func (t ValueType) size() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	case TypeString, TypeArray:
		return 0
	}
	return -1
}

// TensorType is the element type of a tensor (ggml_type).
type TensorType uint32

// The tensor types this package sizes.
const (
	F32 TensorType = 0
	F16 TensorType = 1
)

// elemSize is the size of one element of t.
func (t TensorType) elemSize() (uint64, error) {
	switch t {
	case F32:
		return 4, nil
	case F16:
		return 2, nil
	}
	return 0, fmt.Errorf("tensor type %d not supported", uint32(t))
}
