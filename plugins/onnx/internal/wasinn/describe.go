package wasinn

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// Name is the engine's name as users select it (--set onnx.engine=wasinn).
const Name = "wasinn"

// describe returns the model's graph inputs (initializers excluded) and
// outputs as declared: wasi-nn has no way to ask the host. Unknown
// dimensions are -1.
func describe(model []byte) (ins, outs []engine.TensorDesc, err error) {
	m, err := onnxpb.Decode(model)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", engine.ErrInvalidModel, err)
	}
	inits := map[string]bool{}
	for _, t := range m.Graph.Initializers {
		inits[t.Name] = true
	}
	for _, vi := range m.Graph.Inputs {
		if inits[vi.Name] {
			continue
		}
		d, err := desc(&vi)
		if err != nil {
			return nil, nil, err
		}
		ins = append(ins, d)
	}
	for _, vi := range m.Graph.Outputs {
		d, err := desc(&vi)
		if err != nil {
			return nil, nil, err
		}
		outs = append(outs, d)
	}
	return ins, outs, nil
}

func desc(vi *onnxpb.ValueInfo) (engine.TensorDesc, error) {
	d := engine.TensorDesc{Name: vi.Name, DType: engine.DType(vi.ElemType)}
	if vi.NotTensor || d.DType.Size() == 0 {
		return d, fmt.Errorf("%w: %q is not a tensor of a type this engine exchanges", engine.ErrUnsupported, vi.Name)
	}
	for _, dim := range vi.Shape {
		if dim.HasValue && dim.Value >= 0 {
			d.Shape = append(d.Shape, dim.Value)
		} else {
			d.Shape = append(d.Shape, -1)
		}
	}
	return d, nil
}

// outputShape resolves a declared output shape for an output of n bytes
// computed from a batch of batch items: its one free dimension takes what
// the bytes leave; an output declared without a shape is [batch, rest].
// The shape is appended to dst[:0] (a Run reuses its outputs' shapes).
func outputShape(dst []int64, d engine.TensorDesc, n, batch int) ([]int64, error) {
	size := d.DType.Size()
	if n%size != 0 {
		return nil, fmt.Errorf("output %q: %d bytes are not whole %v elements", d.Name, n, d.DType)
	}
	elems := int64(n / size)
	if len(d.Shape) == 0 {
		if batch <= 0 || elems%int64(batch) != 0 {
			return nil, fmt.Errorf("output %q: %d elements do not split into a batch of %d", d.Name, elems, batch)
		}
		return append(dst[:0], int64(batch), elems/int64(batch)), nil
	}
	shape := append(dst[:0], d.Shape...)
	frees := func() (n, at int, known int64) {
		known, at = 1, -1
		for i, v := range shape {
			if v < 0 {
				n, at = n+1, i
			} else {
				known *= v
			}
		}
		return n, at, known
	}
	n0, _, _ := frees()
	if n0 > 1 && shape[0] < 0 {
		shape[0] = int64(batch) // the first of several free dimensions is the batch
	}
	switch free, at, known := frees(); free {
	case 0:
		if known != elems {
			return nil, fmt.Errorf("output %q of shape %v has %d elements, the host returned %d", d.Name, shape, known, elems)
		}
	case 1:
		if known == 0 || elems%known != 0 {
			return nil, fmt.Errorf("output %q of shape %v cannot hold %d elements", d.Name, d.Shape, elems)
		}
		shape[at] = elems / known
	default:
		return nil, fmt.Errorf("output %q: shape %v has too many free dimensions to resolve", d.Name, d.Shape)
	}
	return shape, nil
}
