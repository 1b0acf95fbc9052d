package zoo

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// opset is the opset the models declare.
const opset = 13

// builder accumulates nodes and initializers with generated names.
type builder struct {
	rng   *rand.Rand
	nodes []onnxpb.Node
	inits []onnxpb.Tensor
	n     int
}

func newBuilder(seed uint64) *builder {
	return &builder{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (b *builder) name(prefix string) string {
	b.n++
	return fmt.Sprintf("%s_%d", prefix, b.n)
}

func (b *builder) node(op string, in []string, attrs ...onnxpb.Attr) string {
	out := b.name(op)
	b.nodes = append(b.nodes, onnxpb.Node{Name: out, OpType: op, Inputs: in, Outputs: []string{out}, Attrs: attrs})
	return out
}

// weights adds a He-initialized tensor with the given fan-in.
func (b *builder) weights(dims []int64, fanIn int) string {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	data := make([]float32, n)
	std := math.Sqrt(2 / float64(fanIn))
	for i := range data {
		data[i] = float32(b.rng.NormFloat64() * std)
	}
	name := b.name("w")
	b.inits = append(b.inits, onnxpb.FloatTensor(name, dims, data))
	return name
}

func (b *builder) bias(n int) string {
	data := make([]float32, n)
	for i := range data {
		data[i] = float32(b.rng.NormFloat64() * 0.01)
	}
	name := b.name("b")
	b.inits = append(b.inits, onnxpb.FloatTensor(name, []int64{int64(n)}, data))
	return name
}

// conv adds Conv(x) with bias; groups > 1 makes it grouped (depthwise
// when groups == cin == cout).
func (b *builder) conv(x string, cin, cout, k, stride, groups int) string {
	pad := int64(k / 2)
	w := b.weights([]int64{int64(cout), int64(cin / groups), int64(k), int64(k)}, cin/groups*k*k)
	return b.node("Conv", []string{x, w, b.bias(cout)},
		onnxpb.IntsAttr("kernel_shape", int64(k), int64(k)), onnxpb.IntsAttr("strides", int64(stride), int64(stride)),
		onnxpb.IntsAttr("pads", pad, pad, pad, pad), onnxpb.IntAttr("group", int64(groups)))
}

func (b *builder) relu(x string) string { return b.node("Relu", []string{x}) }

func (b *builder) relu6(x string) string {
	lo, hi := b.name("lo"), b.name("hi")
	b.inits = append(b.inits, onnxpb.FloatTensor(lo, nil, []float32{0}), onnxpb.FloatTensor(hi, nil, []float32{6}))
	return b.node("Clip", []string{x, lo, hi})
}

// head adds GlobalAveragePool → Flatten → Gemm(classes).
func (b *builder) head(x string, ch, classes int) string {
	x = b.node("GlobalAveragePool", []string{x})
	x = b.node("Flatten", []string{x}, onnxpb.IntAttr("axis", 1))
	w := b.weights([]int64{int64(classes), int64(ch)}, ch)
	return b.node("Gemm", []string{x, w, b.bias(classes)}, onnxpb.IntAttr("transB", 1))
}

// model wraps the graph: input "input" float [N,3,224,224], output the
// last node's value as "logits".
func (b *builder) model(name, last string, classes int) []byte {
	b.nodes = append(b.nodes, onnxpb.Node{Name: "out", OpType: "Identity", Inputs: []string{last}, Outputs: []string{"logits"}})
	return onnxpb.Encode(&onnxpb.Model{
		IRVersion: 8, Opsets: []onnxpb.Opset{{Version: opset}}, ProducerName: "mlperf-host zoo", HasGraph: true,
		Graph: onnxpb.Graph{
			Name: name, Nodes: b.nodes, Initializers: b.inits,
			Inputs:  []onnxpb.ValueInfo{onnxpb.TensorInfo("input", onnxpb.Float, -1, 3, 224, 224)},
			Outputs: []onnxpb.ValueInfo{onnxpb.TensorInfo("logits", onnxpb.Float, -1, int64(classes))},
		},
	})
}
