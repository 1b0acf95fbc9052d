package onnxpb

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// sampleModel is a small Conv→Relu→Flatten→Gemm model exercising most
// field kinds.
func sampleModel() *Model {
	return &Model{
		IRVersion:       8,
		Opsets:          []Opset{{Domain: "", Version: 13}},
		ProducerName:    "onnxpb-test",
		ProducerVersion: "1",
		HasGraph:        true,
		Graph: Graph{
			Name: "g",
			Nodes: []Node{
				{Name: "conv", OpType: "Conv", Inputs: []string{"x", "w", "b"}, Outputs: []string{"c"}, Attrs: []Attr{
					IntsAttr("kernel_shape", 3, 3), IntsAttr("pads", 1, 1, 1, 1), StringAttr("auto_pad", "NOTSET"),
				}},
				{Name: "relu", OpType: "Relu", Inputs: []string{"c"}, Outputs: []string{"r"}},
				{Name: "flat", OpType: "Flatten", Inputs: []string{"r"}, Outputs: []string{"f"}, Attrs: []Attr{IntAttr("axis", 1)}},
				{Name: "fc", OpType: "Gemm", Inputs: []string{"f", "fw"}, Outputs: []string{"y"}, Attrs: []Attr{
					IntAttr("transB", 1), FloatAttr("alpha", 0.5),
				}},
			},
			Initializers: []Tensor{
				FloatTensor("w", []int64{1, 1, 3, 3}, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}),
				{Name: "b", DataType: Float, Dims: []int64{1}, FloatData: []float32{0.25}},
				FloatTensor("fw", []int64{2, 4}, []float32{1, 0, 0, 1, 0, 1, 1, 0}),
			},
			Inputs:  []ValueInfo{TensorInfo("x", Float, -1, 1, 2, 2)},
			Outputs: []ValueInfo{TensorInfo("y", Float, -1, 2)},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	want := sampleModel()
	got, err := Decode(Encode(want))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	w, err := got.Graph.Initializers[0].Float32s()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, w)
	b, err := got.Graph.Initializers[1].Float32s()
	require.NoError(t, err)
	assert.Equal(t, []float32{0.25}, b)
	a, ok := got.Graph.Nodes[3].Attr("alpha")
	require.True(t, ok)
	assert.InDelta(t, 0.5, a.F, 0)
	_, ok = got.Graph.Nodes[3].Attr("beta")
	assert.False(t, ok)
}

func TestEncodeGolden(t *testing.T) {
	t.Parallel()
	got := Encode(sampleModel())
	path := filepath.Join("testdata", "sample.onnx.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, got, "run go test -update to regenerate %s", path)
}

func TestTensorAccessors(t *testing.T) {
	t.Parallel()
	i32 := Tensor{Name: "i", DataType: Int32, Dims: []int64{3}, Int32Data: []int32{-1, 0, 7}}
	got, err := i32.Int64s()
	require.NoError(t, err)
	assert.Equal(t, []int64{-1, 0, 7}, got)

	i64 := Int64Tensor("s", []int64{2}, []int64{-1, 2048})
	got, err = i64.Int64s()
	require.NoError(t, err)
	assert.Equal(t, []int64{-1, 2048}, got)

	u8 := Tensor{Name: "u", DataType: Uint8, Dims: []int64{2}, Int32Data: []int32{3, 255}}
	bs, err := u8.Bytes()
	require.NoError(t, err)
	assert.Equal(t, []byte{3, 255}, bs)

	scalar := FloatTensor("s", nil, []float32{2.5})
	fs, err := scalar.Float32s()
	require.NoError(t, err)
	assert.Equal(t, []float32{2.5}, fs)
}

func TestTensorAccessorErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		t    Tensor
		get  func(*Tensor) error
	}{
		{name: "short raw", t: Tensor{DataType: Float, Dims: []int64{2}, Raw: make([]byte, 7), HasRaw: true}},
		{name: "long typed", t: Tensor{DataType: Float, Dims: []int64{2}, FloatData: []float32{1, 2, 3}}},
		{name: "raw and typed", t: Tensor{DataType: Float, Dims: []int64{1}, Raw: make([]byte, 4), HasRaw: true, FloatData: []float32{1}}},
		{name: "wrong type", t: Tensor{DataType: Int64, Dims: []int64{1}, Int64Data: []int64{1}}},
		{name: "negative dim", t: Tensor{DataType: Float, Dims: []int64{-2}}},
		{name: "huge dims", t: Tensor{DataType: Float, Dims: []int64{1 << 20, 1 << 20}}},
		{name: "overflowing dims", t: Tensor{DataType: Float, Dims: []int64{1 << 62, 1 << 62, 4}}},
		{name: "external", t: Tensor{DataType: Float, Dims: []int64{1}, External: true}},
		{name: "segmented", t: Tensor{DataType: Float, Dims: []int64{1}, Segmented: true, FloatData: []float32{1}}},
		{name: "int64 short raw", t: Tensor{DataType: Int64, Dims: []int64{1}, Raw: make([]byte, 4), HasRaw: true},
			get: func(t *Tensor) error { _, err := t.Int64s(); return err }},
		{name: "uint8 out of range", t: Tensor{DataType: Uint8, Dims: []int64{1}, Int32Data: []int32{300}},
			get: func(t *Tensor) error { _, err := t.Bytes(); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			get := tt.get
			if get == nil {
				get = func(t *Tensor) error { _, err := t.Float32s(); return err }
			}
			require.ErrorIs(t, get(&tt.t), ErrTensorData)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	good := Encode(sampleModel())
	tag := func(num protowire.Number, typ protowire.Type) []byte { return protowire.AppendTag(nil, num, typ) }
	tests := []struct {
		name string
		in   []byte
		path string
	}{
		{name: "truncated", in: good[:len(good)-3]},
		{name: "bad tag", in: []byte{0x00}},
		{name: "group wire type", in: tag(1, protowire.StartGroupType)},
		{name: "ir version as bytes", in: protowire.AppendBytes(tag(modelIRVersion, protowire.BytesType), []byte("x"))},
		{name: "graph as varint", in: protowire.AppendVarint(tag(modelGraph, protowire.VarintType), 1)},
		{name: "length past end", in: append(tag(modelGraph, protowire.BytesType), 0xff, 0x01)},
		{name: "bad node", path: "graph.node[0]", in: appendMessage(nil, modelGraph,
			appendMessage(nil, graphNode, protowire.AppendVarint(tag(nodeOpType, protowire.VarintType), 3)))},
		{name: "packed floats misaligned", path: "graph.initializer[0]", in: appendMessage(nil, modelGraph,
			appendMessage(nil, graphInitializer, protowire.AppendBytes(tag(tensorFloatData, protowire.BytesType), []byte{1, 2, 3})))},
		{name: "int32 overflow", path: "graph.initializer[0]", in: appendMessage(nil, modelGraph,
			appendMessage(nil, graphInitializer, protowire.AppendVarint(tag(tensorDataType, protowire.VarintType), 1<<40)))},
		{name: "rank over max", path: "graph.initializer[0]", in: appendMessage(nil, modelGraph,
			appendMessage(nil, graphInitializer, appendPackedInt64s(nil, tensorDims, make([]int64, MaxRank+1))))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Decode(tt.in)
			require.ErrorIs(t, err, ErrMalformed)
			var de *DecodeError
			require.ErrorAs(t, err, &de)
			if tt.path != "" {
				assert.Equal(t, tt.path, de.Path)
			}
		})
	}
}

func TestDecodeSkipsUnknownAndSubgraphs(t *testing.T) {
	t.Parallel()
	m := sampleModel()
	b := Encode(m)
	// An unknown field (99) and a graph attribute on a node must be
	// skipped, not decoded.
	b = protowire.AppendTag(b, 99, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, 1)
	got, err := Decode(b)
	require.NoError(t, err)
	assert.Equal(t, m, got)

	attr := appendStringField(nil, attrName, "then_branch")
	attr = appendMessage(attr, attrG, Encode(m))
	node := appendMessage(appendStringField(nil, nodeOpType, "If"), nodeAttribute, attr)
	got, err = Decode(appendMessage(nil, modelGraph, appendMessage(nil, graphNode, node)))
	require.NoError(t, err)
	require.Len(t, got.Graph.Nodes, 1)
	assert.Equal(t, 1, got.Graph.Nodes[0].Attrs[0].Graphs)
}

func TestDecodeTensorFile(t *testing.T) {
	t.Parallel()
	want := FloatTensor("x", []int64{2, 2}, []float32{1, -2, 3.5, 0})
	got, err := DecodeTensor(EncodeTensor(&want))
	require.NoError(t, err)
	assert.Equal(t, &want, got)
	_, err = DecodeTensor([]byte{0x0a, 0x05})
	require.ErrorIs(t, err, ErrMalformed)
}
