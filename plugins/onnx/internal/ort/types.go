//go:build linux || darwin

package ort

import "fmt"

// elementTypeName names an ONNXTensorElementDataType (the values of ONNX's
// TensorProto.DataType) for error messages.
func elementTypeName(t int32) string {
	names := [...]string{"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
		"bool", "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16"}
	if t >= 0 && int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("element type %d", t)
}

// onnxTypeName names an ONNXType for error messages.
func onnxTypeName(t int32) string {
	names := [...]string{"unknown type", "tensor", "sequence", "map", "opaque", "sparse tensor", "optional"}
	if t >= 0 && int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("onnx type %d", t)
}
