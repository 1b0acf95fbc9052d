package onnxpb

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers from onnx.proto.
const (
	modelIRVersion       = 1
	modelProducerName    = 2
	modelProducerVersion = 3
	modelDomain          = 4
	modelModelVersion    = 5
	modelDocString       = 6
	modelGraph           = 7
	modelOpsetImport     = 8
	modelFunctions       = 25

	opsetDomain  = 1
	opsetVersion = 2

	graphNode              = 1
	graphName              = 2
	graphInitializer       = 5
	graphInput             = 11
	graphOutput            = 12
	graphValueInfo         = 13
	graphSparseInitializer = 15

	nodeInput     = 1
	nodeOutput    = 2
	nodeName      = 3
	nodeOpType    = 4
	nodeAttribute = 5
	nodeDomain    = 7

	attrName        = 1
	attrF           = 2
	attrI           = 3
	attrS           = 4
	attrT           = 5
	attrG           = 6
	attrFloats      = 7
	attrInts        = 8
	attrStrings     = 9
	attrTensors     = 10
	attrGraphs      = 11
	attrType        = 20
	attrRefAttrName = 21

	valueInfoName = 1
	valueInfoType = 2

	typeTensor       = 1
	typeSequence     = 4
	typeMap          = 5
	typeSparseTensor = 8
	typeOptional     = 9

	typeTensorElemType = 1
	typeTensorShape    = 2

	shapeDim = 1

	dimValue = 1
	dimParam = 2

	tensorDims         = 1
	tensorDataType     = 2
	tensorSegment      = 3
	tensorFloatData    = 4
	tensorInt32Data    = 5
	tensorStringData   = 6
	tensorInt64Data    = 7
	tensorName         = 8
	tensorRawData      = 9
	tensorDoubleData   = 10
	tensorUint64Data   = 11
	tensorExternalData = 13
	tensorDataLocation = 14
)

// MaxRank is the largest tensor rank Decode accepts.
const MaxRank = 16

// Decode parses the bytes of an ONNX ModelProto. Tensor raw data in the
// result aliases b.
//
// # Errors
//
// Malformed input returns a *[DecodeError] wrapping [ErrMalformed].
// Decode checks the wire format and field types only; whether the model
// makes sense (versions, graph structure, tensor sizes) is for the caller.
func Decode(b []byte) (*Model, error) {
	m := &Model{}
	err := forEach(b, func(f field) error {
		var err error
		switch f.num {
		case modelIRVersion:
			m.IRVersion, err = f.int64()
		case modelProducerName:
			m.ProducerName, err = f.str()
		case modelProducerVersion:
			m.ProducerVersion, err = f.str()
		case modelDomain:
			m.Domain, err = f.str()
		case modelModelVersion:
			m.ModelVersion, err = f.int64()
		case modelDocString:
			m.DocString, err = f.str()
		case modelGraph:
			var gb []byte
			if gb, err = f.bytes(); err == nil {
				m.HasGraph = true
				err = at("graph", decodeGraph(gb, &m.Graph))
			}
		case modelOpsetImport:
			var ob []byte
			if ob, err = f.bytes(); err == nil {
				var o Opset
				err = atIndex("opset_import", len(m.Opsets), decodeOpset(ob, &o))
				m.Opsets = append(m.Opsets, o)
			}
		case modelFunctions:
			m.HasFunctions = true
			err = f.want(protowire.BytesType)
		}
		return err
	})
	if err != nil {
		return nil, at("", err)
	}
	return m, nil
}

func decodeOpset(b []byte, o *Opset) error {
	return forEach(b, func(f field) error {
		var err error
		switch f.num {
		case opsetDomain:
			o.Domain, err = f.str()
		case opsetVersion:
			o.Version, err = f.int64()
		}
		return err
	})
}

// decodeRepeated decodes one element of a repeated message field and
// appends it, naming its index in errors.
func decodeRepeated[T any](f field, name string, dst *[]T, dec func([]byte, *T) error) error {
	b, err := f.bytes()
	if err != nil {
		return at(name, err)
	}
	var v T
	if err := dec(b, &v); err != nil {
		return atIndex(name, len(*dst), err)
	}
	*dst = append(*dst, v)
	return nil
}

func decodeGraph(b []byte, g *Graph) error {
	return forEach(b, func(f field) error {
		var err error
		switch f.num {
		case graphNode:
			err = decodeRepeated(f, "node", &g.Nodes, decodeNode)
		case graphName:
			g.Name, err = f.str()
		case graphInitializer:
			err = decodeRepeated(f, "initializer", &g.Initializers, decodeTensor)
		case graphInput:
			err = decodeRepeated(f, "input", &g.Inputs, decodeValueInfo)
		case graphOutput:
			err = decodeRepeated(f, "output", &g.Outputs, decodeValueInfo)
		case graphValueInfo:
			err = decodeRepeated(f, "value_info", &g.ValueInfo, decodeValueInfo)
		case graphSparseInitializer:
			g.SparseInitializers++
			err = f.want(protowire.BytesType)
		}
		return err
	})
}

func decodeNode(b []byte, n *Node) error {
	return forEach(b, func(f field) error {
		var err error
		var s string
		switch f.num {
		case nodeInput:
			s, err = f.str()
			n.Inputs = append(n.Inputs, s)
		case nodeOutput:
			s, err = f.str()
			n.Outputs = append(n.Outputs, s)
		case nodeName:
			n.Name, err = f.str()
		case nodeOpType:
			n.OpType, err = f.str()
		case nodeDomain:
			n.Domain, err = f.str()
		case nodeAttribute:
			err = decodeRepeated(f, "attribute", &n.Attrs, decodeAttr)
		}
		return err
	})
}

func decodeAttr(b []byte, a *Attr) error {
	return forEach(b, func(f field) error {
		var err error
		switch f.num {
		case attrName:
			a.Name, err = f.str()
		case attrType:
			var t int32
			t, err = f.int32()
			a.Type = AttrType(t)
		case attrF:
			a.F, err = f.float32()
		case attrI:
			a.I, err = f.int64()
		case attrS:
			a.S, err = f.bytes()
		case attrT:
			var tb []byte
			if tb, err = f.bytes(); err == nil {
				a.T = &Tensor{}
				err = at("t", decodeTensor(tb, a.T))
			}
		case attrG, attrGraphs:
			a.Graphs++
			err = f.want(protowire.BytesType)
		case attrFloats:
			a.Floats, err = appendFloat32s(a.Floats, f)
		case attrInts:
			a.Ints, err = appendInt64s(a.Ints, f)
		case attrStrings:
			var s []byte
			s, err = f.bytes()
			a.Strings = append(a.Strings, s)
		case attrTensors:
			err = decodeRepeated(f, "tensors", &a.Tensors, decodeTensor)
		case attrRefAttrName:
			a.RefAttrName, err = f.str()
		}
		return err
	})
}

func decodeValueInfo(b []byte, v *ValueInfo) error {
	return forEach(b, func(f field) error {
		var err error
		switch f.num {
		case valueInfoName:
			v.Name, err = f.str()
		case valueInfoType:
			var tb []byte
			if tb, err = f.bytes(); err == nil {
				err = at("type", decodeType(tb, v))
			}
		}
		return err
	})
}

func decodeType(b []byte, v *ValueInfo) error {
	return forEach(b, func(f field) error {
		switch f.num {
		case typeTensor:
			tb, err := f.bytes()
			if err != nil {
				return err
			}
			return at("tensor_type", decodeTensorType(tb, v))
		case typeSequence, typeMap, typeSparseTensor, typeOptional:
			v.NotTensor = true
			return f.want(protowire.BytesType)
		}
		return nil
	})
}

func decodeTensorType(b []byte, v *ValueInfo) error {
	return forEach(b, func(f field) error {
		var err error
		switch f.num {
		case typeTensorElemType:
			v.ElemType, err = f.int32()
		case typeTensorShape:
			var sb []byte
			if sb, err = f.bytes(); err == nil {
				v.HasShape = true
				v.Shape = v.Shape[:0]
				err = at("shape", decodeShape(sb, v))
			}
		}
		return err
	})
}

func decodeShape(b []byte, v *ValueInfo) error {
	return forEach(b, func(f field) error {
		if f.num != shapeDim {
			return nil
		}
		if len(v.Shape) == MaxRank {
			return fmt.Errorf("more than %d dims", MaxRank)
		}
		return decodeRepeated(f, "dim", &v.Shape, decodeDim)
	})
}

func decodeDim(b []byte, d *Dim) error {
	return forEach(b, func(f field) error {
		var err error
		switch f.num {
		case dimValue:
			d.Value, err = f.int64()
			d.HasValue = true
			d.Param = ""
		case dimParam:
			d.Param, err = f.str()
			d.HasValue = false
			d.Value = 0
		}
		return err
	})
}

func decodeTensor(b []byte, t *Tensor) error {
	return forEach(b, func(f field) error {
		var err error
		switch f.num {
		case tensorDims:
			t.Dims, err = appendInt64s(t.Dims, f)
			if err == nil && len(t.Dims) > MaxRank {
				err = fmt.Errorf("dims: rank %d exceeds %d", len(t.Dims), MaxRank)
			}
		case tensorDataType:
			var d int32
			d, err = f.int32()
			t.DataType = DataType(d)
		case tensorSegment:
			t.Segmented = true
			err = f.want(protowire.BytesType)
		case tensorFloatData:
			t.FloatData, err = appendFloat32s(t.FloatData, f)
		case tensorInt32Data:
			t.Int32Data, err = appendInt32s(t.Int32Data, f)
		case tensorStringData:
			t.Strings++
			err = f.want(protowire.BytesType)
		case tensorInt64Data:
			t.Int64Data, err = appendInt64s(t.Int64Data, f)
		case tensorName:
			t.Name, err = f.str()
		case tensorRawData:
			t.Raw, err = f.bytes()
			t.HasRaw = true
		case tensorDoubleData:
			t.DoubleData, err = appendFloat64s(t.DoubleData, f)
		case tensorUint64Data:
			t.Uint64Data, err = appendUint64s(t.Uint64Data, f)
		case tensorExternalData:
			t.External = true
			var eb []byte
			if eb, err = f.bytes(); err == nil {
				err = at("external_data", decodeExternalEntry(eb, &t.ExternalData))
			}
		case tensorDataLocation:
			var loc int64
			loc, err = f.int64()
			t.External = t.External || loc == 1
		}
		return err
	})
}
