package fashionmnist

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// ClassOutput is the name of [ClassModel]'s one output.
const ClassOutput = "class"

// ClassModel returns the demo model as the demo benchmark serves it: the
// logits model of [Model] followed by ArgMax over the classes and a Cast
// to float, so that its one output, "class" float [N], is each image's
// predicted class. A sample's response is then that class as one
// little-endian float32, the response MLPerf's ResNet-50 reference writes
// and the official accuracy-imagenet.py reads (its default --dtype
// float32). ArgMax keeps the first highest logit, as numpy's argmax does.
//
// # Errors
//
// None for the embedded model; an error means the embedded bytes are not
// the model this package was built with.
func ClassModel() ([]byte, error) {
	m, err := onnxpb.Decode(model)
	if err != nil {
		return nil, fmt.Errorf("fashion-mnist model: %w", err)
	}
	g := &m.Graph
	if len(g.Outputs) != 1 {
		return nil, fmt.Errorf("fashion-mnist model: %d outputs, want the logits alone", len(g.Outputs))
	}
	logits := g.Outputs[0].Name
	const index = "class_index"
	g.Nodes = append(g.Nodes,
		onnxpb.Node{Name: "argmax", OpType: "ArgMax", Inputs: []string{logits}, Outputs: []string{index},
			Attrs: []onnxpb.Attr{onnxpb.IntAttr("axis", 1), onnxpb.IntAttr("keepdims", 0)}},
		onnxpb.Node{Name: "to_float", OpType: "Cast", Inputs: []string{index}, Outputs: []string{ClassOutput},
			Attrs: []onnxpb.Attr{onnxpb.IntAttr("to", int64(onnxpb.Float))}},
	)
	g.Outputs = []onnxpb.ValueInfo{onnxpb.TensorInfo(ClassOutput, onnxpb.Float, -1)}
	return onnxpb.Encode(m), nil
}
