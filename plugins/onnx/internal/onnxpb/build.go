package onnxpb

import (
	"encoding/binary"
	"math"
)

// FloatTensor returns a FLOAT tensor holding data as raw bytes.
func FloatTensor(name string, dims []int64, data []float32) Tensor {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return Tensor{Name: name, DataType: Float, Dims: dims, Raw: raw, HasRaw: true}
}

// Int64Tensor returns an INT64 tensor holding data as raw bytes.
func Int64Tensor(name string, dims []int64, data []int64) Tensor {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return Tensor{Name: name, DataType: Int64, Dims: dims, Raw: raw, HasRaw: true}
}

// TensorInfo returns a tensor ValueInfo. A negative dimension becomes the
// symbolic dimension "N".
func TensorInfo(name string, elem DataType, dims ...int64) ValueInfo {
	v := ValueInfo{Name: name, ElemType: int32(elem), HasShape: true}
	for _, d := range dims {
		if d < 0 {
			v.Shape = append(v.Shape, Dim{Param: "N"})
		} else {
			v.Shape = append(v.Shape, Dim{Value: d, HasValue: true})
		}
	}
	return v
}

// IntAttr returns an INT attribute.
func IntAttr(name string, v int64) Attr { return Attr{Name: name, Type: AttrInt, I: v} }

// IntsAttr returns an INTS attribute.
func IntsAttr(name string, v ...int64) Attr { return Attr{Name: name, Type: AttrInts, Ints: v} }

// FloatAttr returns a FLOAT attribute.
func FloatAttr(name string, v float32) Attr { return Attr{Name: name, Type: AttrFloat, F: v} }

// StringAttr returns a STRING attribute.
func StringAttr(name, v string) Attr { return Attr{Name: name, Type: AttrString, S: []byte(v)} }

// TensorAttr returns a TENSOR attribute.
func TensorAttr(name string, t Tensor) Attr { return Attr{Name: name, Type: AttrTensor, T: &t} }

// Externalize moves the raw data of m's initializers of at least
// minBytes bytes into one external data file named location (beside the
// model), as exporters do for models over 2 GB, and returns the file's
// bytes. Each tensor's entries give its offset and length; smaller
// initializers and those without raw data stay inline (onnx's exporter
// keeps those under 1 KiB inline: ONNX Runtime's shape inference reads a
// Reshape's shape or an Unsqueeze's axes only from inline data).
func Externalize(m *Model, location string, minBytes int) []byte {
	var data []byte
	for i := range m.Graph.Initializers {
		t := &m.Graph.Initializers[i]
		if !t.HasRaw || len(t.Raw) < minBytes {
			continue
		}
		t.ExternalData = ExternalData{Location: location, Offset: int64(len(data)), Length: int64(len(t.Raw)), HasLength: true}
		data = append(data, t.Raw...)
		t.Raw, t.HasRaw, t.External = nil, false, true
	}
	return data
}
