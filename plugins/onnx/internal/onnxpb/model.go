package onnxpb

import "strconv"

// Model is a decoded ModelProto.
type Model struct {
	IRVersion       int64
	Opsets          []Opset
	ProducerName    string
	ProducerVersion string
	Domain          string
	ModelVersion    int64
	DocString       string
	Graph           Graph
	// HasGraph is false when the file carries no graph field.
	HasGraph bool
	// HasFunctions is true when the model defines local functions, which
	// no engine here supports.
	HasFunctions bool
}

// Opset is an OperatorSetIdProto: an operator set domain ("" is the
// default ONNX domain, also spelled "ai.onnx") and its version.
type Opset struct {
	Domain  string
	Version int64
}

// Graph is a decoded GraphProto.
type Graph struct {
	Name         string
	Nodes        []Node
	Initializers []Tensor
	Inputs       []ValueInfo
	Outputs      []ValueInfo
	ValueInfo    []ValueInfo
	// SparseInitializers counts sparse_initializer entries, which are
	// recorded but not decoded.
	SparseInitializers int
}

// Node is a decoded NodeProto.
type Node struct {
	Name    string
	OpType  string
	Domain  string
	Inputs  []string
	Outputs []string
	Attrs   []Attr
}

// Attr returns the attribute called name and whether it is present.
func (n *Node) Attr(name string) (*Attr, bool) {
	for i := range n.Attrs {
		if n.Attrs[i].Name == name {
			return &n.Attrs[i], true
		}
	}
	return nil, false
}

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// The attribute types of ONNX.
const (
	AttrUndefined    AttrType = 0
	AttrFloat        AttrType = 1
	AttrInt          AttrType = 2
	AttrString       AttrType = 3
	AttrTensor       AttrType = 4
	AttrGraph        AttrType = 5
	AttrFloats       AttrType = 6
	AttrInts         AttrType = 7
	AttrStrings      AttrType = 8
	AttrTensors      AttrType = 9
	AttrGraphs       AttrType = 10
	AttrSparseTensor AttrType = 11
	AttrTypeProto    AttrType = 13
)

// String names the type as onnx.proto does.
func (t AttrType) String() string {
	names := map[AttrType]string{
		AttrUndefined: "UNDEFINED", AttrFloat: "FLOAT", AttrInt: "INT", AttrString: "STRING",
		AttrTensor: "TENSOR", AttrGraph: "GRAPH", AttrFloats: "FLOATS", AttrInts: "INTS",
		AttrStrings: "STRINGS", AttrTensors: "TENSORS", AttrGraphs: "GRAPHS",
		AttrSparseTensor: "SPARSE_TENSOR", AttrTypeProto: "TYPE_PROTO",
	}
	if s, ok := names[t]; ok {
		return s
	}
	return "ATTR_TYPE_" + strconv.Itoa(int(t))
}

// Attr is a decoded AttributeProto. Only the field Type names is
// meaningful. Graph-valued attributes are not decoded: Graphs counts them.
type Attr struct {
	Name    string
	Type    AttrType
	F       float32
	I       int64
	S       []byte
	T       *Tensor
	Floats  []float32
	Ints    []int64
	Strings [][]byte
	Tensors []Tensor
	// Graphs counts graph values (g and graphs fields), which are skipped.
	Graphs int
	// RefAttrName is set in function bodies, which no engine here runs.
	RefAttrName string
}

// ValueInfo is a decoded ValueInfoProto restricted to tensor types.
type ValueInfo struct {
	Name string
	// ElemType is the TensorProto.DataType of the elements, 0 when the
	// type is absent or not a tensor type.
	ElemType int32
	// NotTensor is true when the type is a sequence, map, optional or
	// sparse tensor type.
	NotTensor bool
	// HasShape is false when the tensor type carries no shape at all
	// (unknown rank).
	HasShape bool
	Shape    []Dim
}

// Dim is one TensorShapeProto.Dimension: a value, a symbolic name, or
// neither (unknown).
type Dim struct {
	Value    int64
	HasValue bool
	Param    string
}

// DataType is TensorProto.DataType.
type DataType int32

// The tensor element types of ONNX that this package can hold.
const (
	Undefined DataType = 0
	Float     DataType = 1
	Uint8     DataType = 2
	Int8      DataType = 3
	Uint16    DataType = 4
	Int16     DataType = 5
	Int32     DataType = 6
	Int64     DataType = 7
	String    DataType = 8
	Bool      DataType = 9
	Float16   DataType = 10
	Double    DataType = 11
	Uint32    DataType = 12
	Uint64    DataType = 13
)

// String names the type as onnx.proto does.
func (d DataType) String() string {
	names := [...]string{"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64",
		"STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64"}
	if d >= 0 && int(d) < len(names) {
		return names[d]
	}
	return "DATA_TYPE_" + strconv.Itoa(int(d))
}

// Tensor is a decoded TensorProto. Raw aliases the decoded input: it is
// valid only as long as the bytes given to [Decode] are.
type Tensor struct {
	Name       string
	DataType   DataType
	Dims       []int64
	Raw        []byte
	HasRaw     bool
	FloatData  []float32
	Int32Data  []int32
	Int64Data  []int64
	DoubleData []float64
	Uint64Data []uint64
	// Strings counts string_data entries, which are not kept.
	Strings int
	// External is true when the data lives in an external file
	// (data_location EXTERNAL or external_data entries): ExternalData
	// says where, [ReadExternal] reads it.
	External     bool
	ExternalData ExternalData
	// Segmented is true when the tensor is one segment of a larger one.
	Segmented bool
}
