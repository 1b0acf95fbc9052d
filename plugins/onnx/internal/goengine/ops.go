package goengine

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// op is one node's operator, parsed and validated at load.
type op interface {
	// infer sets each present output's dtype and shape from the inputs
	// (nil for an omitted optional input). Inputs with konst set carry
	// their data. Errors name what is wrong; the caller adds the node.
	infer(in, out []*tensor) error
	// bind returns the step that computes out from in. The tensors carry
	// their storage: the arena for computed values, their own for
	// constants. bind may keep state across calls (packed weights).
	bind(env *bindEnv, in, out []*tensor) (step, error)
}

// step is one bound operator of a plan.
type step interface {
	run(pool *kernels.Pool)
}

// bindEnv is what operators may use when binding.
type bindEnv struct {
	gemm *kernels.Gemm
}

// opInfo is one registered operator: the opset versions whose semantics
// we implement (since: the first opset of the oldest version we accept)
// and its constructor.
type opInfo struct {
	since int64
	make  func(a *attrs, n *onnxpb.Node, opset int64) (op, error)
}

// registry lists the operators of the default domain the engine runs.
func registry() map[string]opInfo {
	return map[string]opInfo{
		"Conv":               {since: 1, make: newConv},
		"BatchNormalization": {since: 7, make: newBatchNorm},
		"Relu":               {since: 6, make: newUnary},
		"Clip":               {since: 6, make: newClip},
		"MaxPool":            {since: 8, make: newMaxPool},
		"AveragePool":        {since: 7, make: newAvgPool},
		"GlobalAveragePool":  {since: 1, make: newGlobalAvgPool},
		"Add":                {since: 7, make: newBinary},
		"Sub":                {since: 7, make: newBinary},
		"Mul":                {since: 7, make: newBinary},
		"Div":                {since: 7, make: newBinary},
		"Gemm":               {since: 7, make: newGemm},
		"MatMul":             {since: 1, make: newMatMul},
		"Flatten":            {since: 1, make: newFlatten},
		"Reshape":            {since: 5, make: newReshape},
		"Squeeze":            {since: 1, make: newSqueeze},
		"Unsqueeze":          {since: 1, make: newUnsqueeze},
		"Transpose":          {since: 1, make: newTranspose},
		"Concat":             {since: 4, make: newConcat},
		"Softmax":            {since: 1, make: newSoftmax},
		"ArgMax":             {since: 1, make: newArgMax},
		"Identity":           {since: 1, make: newIdentity},
		"Dropout":            {since: 7, make: newDropout},
		"Constant":           {since: 1, make: newConstant},
		"Shape":              {since: 1, make: newShape},
		"Gather":             {since: 1, make: newGather},
		"GatherElements":     {since: 11, make: newGatherElements},
		"Cast":               {since: 6, make: newCast},
		"Pad":                {since: 2, make: newPad},
	}
}

// newOp creates the operator of node n for the model's default opset.
func newOp(n *onnxpb.Node, opset int64) (op, error) {
	info, ok := registry()[n.OpType]
	if !ok {
		return nil, unsupported("operator %q is not implemented", n.OpType)
	}
	if opset < info.since {
		return nil, unsupported("operator %q at opset %d (implemented from %d)", n.OpType, opset, info.since)
	}
	a := newAttrs(n)
	o, err := info.make(a, n, opset)
	if err != nil {
		return nil, err
	}
	if err := a.done(); err != nil {
		return nil, err
	}
	return o, nil
}

// wantInputs checks the number of inputs a node has.
func wantInputs(n *onnxpb.Node, lo, hi int) error {
	if len(n.Inputs) < lo || len(n.Inputs) > hi {
		if lo == hi {
			return invalid("%d inputs, want %d", len(n.Inputs), lo)
		}
		return invalid("%d inputs, want %d to %d", len(n.Inputs), lo, hi)
	}
	if lo > 0 && n.Inputs[0] == "" {
		return invalid("first input is missing")
	}
	return nil
}

// wantOutputs checks that a node has between 1 and hi outputs and that
// the ones past the first (optional outputs the engine does not compute,
// such as MaxPool indices) are omitted.
func wantOutputs(n *onnxpb.Node, hi int) error {
	if len(n.Outputs) < 1 || len(n.Outputs) > hi {
		return invalid("%d outputs, want 1 to %d", len(n.Outputs), hi)
	}
	for i, o := range n.Outputs[1:] {
		if o != "" {
			return unsupported("optional output %d (%q)", i+1, o)
		}
	}
	return nil
}

// checkIO is wantInputs plus wantOutputs for single-output operators.
func checkIO(n *onnxpb.Node, lo, hi int) error {
	if err := wantInputs(n, lo, hi); err != nil {
		return err
	}
	return wantOutputs(n, 1)
}

// runFunc adapts a function to step.
type runFunc func(pool *kernels.Pool)

func (f runFunc) run(pool *kernels.Pool) { f(pool) }
