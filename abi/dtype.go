package abi

// DType names an element type of a tensor in TensorSpec.dtype (v1.2), as
// numpy names it. Elements are little-endian.
type DType string

// The element types.
const (
	Uint8   DType = "uint8"
	Int8    DType = "int8"
	Int16   DType = "int16"
	Int32   DType = "int32"
	Int64   DType = "int64"
	Float16 DType = "float16"
	Float32 DType = "float32"
	Float64 DType = "float64"
	Bool    DType = "bool"
)

// DTypes lists the element types.
func DTypes() []DType {
	return []DType{Uint8, Int8, Int16, Int32, Int64, Float16, Float32, Float64, Bool}
}

// Size returns the bytes of one element; 0 for a name that is no DType.
func (d DType) Size() int {
	switch d {
	case Uint8, Int8, Bool:
		return 1
	case Int16, Float16:
		return 2
	case Int32, Float32:
		return 4
	case Int64, Float64:
		return 8
	}
	return 0
}

// Limits of a tensor schema, which bound what a host or a plugin must
// accept from the other side.
const (
	MaxTensors    = 64
	MaxTensorRank = 16
)

// Varies marks a TensorSpec dimension that differs from sample to sample.
const Varies = -1
