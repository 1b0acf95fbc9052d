package onnxpb

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Encode serializes m as an ONNX ModelProto, writing every field this
// package decodes except skipped ones (functions, graph attributes, sparse
// initializers, segments, external data, string data). Repeated scalars are
// packed. Decode(Encode(m)) reproduces m up to those omissions.
//
// Encode is for tests and tools that build models in Go; the engines only
// read.
func Encode(m *Model) []byte {
	var b []byte
	b = appendVarintField(b, modelIRVersion, uint64(m.IRVersion))
	b = appendStringField(b, modelProducerName, m.ProducerName)
	b = appendStringField(b, modelProducerVersion, m.ProducerVersion)
	b = appendStringField(b, modelDomain, m.Domain)
	b = appendVarintField(b, modelModelVersion, uint64(m.ModelVersion))
	b = appendStringField(b, modelDocString, m.DocString)
	if m.HasGraph {
		b = appendMessage(b, modelGraph, encodeGraph(&m.Graph))
	}
	for _, o := range m.Opsets {
		var ob []byte
		ob = appendStringField(ob, opsetDomain, o.Domain)
		ob = appendVarintField(ob, opsetVersion, uint64(o.Version))
		b = appendMessage(b, modelOpsetImport, ob)
	}
	return b
}

func encodeGraph(g *Graph) []byte {
	var b []byte
	for i := range g.Nodes {
		b = appendMessage(b, graphNode, encodeNode(&g.Nodes[i]))
	}
	b = appendStringField(b, graphName, g.Name)
	for i := range g.Initializers {
		b = appendMessage(b, graphInitializer, EncodeTensor(&g.Initializers[i]))
	}
	for _, list := range []struct {
		num protowire.Number
		vs  []ValueInfo
	}{{graphInput, g.Inputs}, {graphOutput, g.Outputs}, {graphValueInfo, g.ValueInfo}} {
		for i := range list.vs {
			b = appendMessage(b, list.num, encodeValueInfo(&list.vs[i]))
		}
	}
	return b
}

func encodeNode(n *Node) []byte {
	var b []byte
	for _, s := range n.Inputs {
		b = protowire.AppendTag(b, nodeInput, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	for _, s := range n.Outputs {
		b = protowire.AppendTag(b, nodeOutput, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	b = appendStringField(b, nodeName, n.Name)
	b = appendStringField(b, nodeOpType, n.OpType)
	for i := range n.Attrs {
		b = appendMessage(b, nodeAttribute, encodeAttr(&n.Attrs[i]))
	}
	b = appendStringField(b, nodeDomain, n.Domain)
	return b
}

func encodeAttr(a *Attr) []byte {
	var b []byte
	b = appendStringField(b, attrName, a.Name)
	switch a.Type {
	case AttrFloat:
		b = protowire.AppendTag(b, attrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case AttrInt:
		b = protowire.AppendTag(b, attrI, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.I))
	case AttrString:
		b = protowire.AppendTag(b, attrS, protowire.BytesType)
		b = protowire.AppendBytes(b, a.S)
	case AttrTensor:
		if a.T != nil {
			b = appendMessage(b, attrT, EncodeTensor(a.T))
		}
	case AttrFloats:
		b = appendPackedFloat32s(b, attrFloats, a.Floats)
	case AttrInts:
		b = appendPackedInt64s(b, attrInts, a.Ints)
	case AttrStrings:
		for _, s := range a.Strings {
			b = protowire.AppendTag(b, attrStrings, protowire.BytesType)
			b = protowire.AppendBytes(b, s)
		}
	case AttrTensors:
		for i := range a.Tensors {
			b = appendMessage(b, attrTensors, EncodeTensor(&a.Tensors[i]))
		}
	}
	b = appendVarintField(b, attrType, uint64(a.Type))
	return b
}

func encodeValueInfo(v *ValueInfo) []byte {
	var tt []byte
	tt = appendVarintField(tt, typeTensorElemType, uint64(v.ElemType))
	if v.HasShape {
		var sb []byte
		for _, d := range v.Shape {
			var db []byte
			if d.HasValue {
				db = protowire.AppendTag(db, dimValue, protowire.VarintType)
				db = protowire.AppendVarint(db, uint64(d.Value))
			} else if d.Param != "" {
				db = appendStringField(db, dimParam, d.Param)
			}
			sb = protowire.AppendTag(sb, shapeDim, protowire.BytesType)
			sb = protowire.AppendBytes(sb, db)
		}
		tt = protowire.AppendTag(tt, typeTensorShape, protowire.BytesType)
		tt = protowire.AppendBytes(tt, sb)
	}
	var b []byte
	b = appendStringField(b, valueInfoName, v.Name)
	b = appendMessage(b, valueInfoType, appendMessage(nil, typeTensor, tt))
	return b
}

// EncodeTensor serializes one TensorProto (the format of ONNX test data
// files such as input_0.pb).
func EncodeTensor(t *Tensor) []byte {
	var b []byte
	b = appendPackedInt64s(b, tensorDims, t.Dims)
	b = appendVarintField(b, tensorDataType, uint64(t.DataType))
	b = appendPackedFloat32s(b, tensorFloatData, t.FloatData)
	if len(t.Int32Data) > 0 {
		vs := make([]int64, len(t.Int32Data))
		for i, v := range t.Int32Data {
			vs[i] = int64(v)
		}
		b = appendPackedInt64s(b, tensorInt32Data, vs)
	}
	b = appendPackedInt64s(b, tensorInt64Data, t.Int64Data)
	b = appendStringField(b, tensorName, t.Name)
	if t.HasRaw {
		b = protowire.AppendTag(b, tensorRawData, protowire.BytesType)
		b = protowire.AppendBytes(b, t.Raw)
	}
	if len(t.DoubleData) > 0 {
		var pb []byte
		for _, v := range t.DoubleData {
			pb = protowire.AppendFixed64(pb, math.Float64bits(v))
		}
		b = protowire.AppendTag(b, tensorDoubleData, protowire.BytesType)
		b = protowire.AppendBytes(b, pb)
	}
	if t.External {
		b = appendExternalData(b, &t.ExternalData)
		b = appendVarintField(b, tensorDataLocation, 1)
	}
	if len(t.Uint64Data) > 0 {
		var pb []byte
		for _, v := range t.Uint64Data {
			pb = protowire.AppendVarint(pb, v)
		}
		b = protowire.AppendTag(b, tensorUint64Data, protowire.BytesType)
		b = protowire.AppendBytes(b, pb)
	}
	return b
}

// DecodeTensor parses one serialized TensorProto, such as an ONNX test
// data file. Raw data aliases b.
//
// # Errors
//
// As [Decode].
func DecodeTensor(b []byte) (*Tensor, error) {
	t := &Tensor{}
	if err := decodeTensor(b, t); err != nil {
		return nil, at("tensor", err)
	}
	return t, nil
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendStringField(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func appendPackedInt64s(b []byte, num protowire.Number, vs []int64) []byte {
	if len(vs) == 0 {
		return b
	}
	var pb []byte
	for _, v := range vs {
		pb = protowire.AppendVarint(pb, uint64(v))
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, pb)
}

func appendPackedFloat32s(b []byte, num protowire.Number, vs []float32) []byte {
	if len(vs) == 0 {
		return b
	}
	pb := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		pb = protowire.AppendFixed32(pb, math.Float32bits(v))
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, pb)
}
