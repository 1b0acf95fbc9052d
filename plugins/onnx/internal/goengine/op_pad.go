package goengine

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// padOp is Pad in constant mode with non-negative pads (PyTorch exports
// it in front of AveragePool with count_include_pad).
type padOp struct {
	pads   []int // opset < 11: from the attribute
	value  float32
	inputs bool // opset >= 11: pads and constant_value are inputs
}

func newPad(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	if mode := a.str("mode", "constant"); mode != "constant" {
		return nil, unsupported("mode %q", mode)
	}
	o := &padOp{}
	if opset < 11 {
		o.pads = a.ints("pads", nil)
		o.value = a.float("value", 0)
		if o.pads == nil {
			return nil, invalid("pads is required")
		}
		return o, checkIO(n, 1, 1)
	}
	o.inputs = true
	if len(n.Inputs) > 3 && n.Inputs[3] != "" {
		return nil, unsupported("axes input")
	}
	return o, checkIO(n, 2, 4)
}

// resolve returns the pads and fill value for this input.
func (o *padOp) resolve(in []*tensor) ([]int, float32, error) {
	if !o.inputs {
		return o.pads, o.value, nil
	}
	p := in[1]
	if p == nil || !p.konst {
		return nil, 0, unsupported("pads computed at run time")
	}
	pads, err := p.ints()
	if err != nil {
		return nil, 0, invalid("pads: %v", err)
	}
	var v float32
	if len(in) > 2 && in[2] != nil {
		if !in[2].konst {
			return nil, 0, unsupported("constant_value computed at run time")
		}
		if v, err = in[2].scalarFloat(); err != nil {
			return nil, 0, invalid("constant_value: %v", err)
		}
	}
	return pads, v, nil
}

func (o *padOp) infer(in, out []*tensor) error {
	x := in[0]
	if x.dt != onnxpb.Float {
		return unsupported("input type %v", x.dt)
	}
	pads, _, err := o.resolve(in)
	if err != nil {
		return err
	}
	r := len(x.shape)
	if len(pads) != 2*r {
		return invalid("%d pads for rank %d", len(pads), r)
	}
	shape := make([]int, r)
	for i := range r {
		if pads[i] < 0 || pads[i+r] < 0 {
			return unsupported("negative pads %v", pads)
		}
		shape[i] = x.shape[i] + pads[i] + pads[i+r]
	}
	out[0].dt, out[0].shape = onnxpb.Float, shape
	return nil
}

func (o *padOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	x, y := in[0], out[0]
	pads, v, err := o.resolve(in)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	// Output offset of input element 0, and output strides.
	ost := make([]int, r)
	acc := 1
	for i := r - 1; i >= 0; i-- {
		ost[i] = acc
		acc *= y.shape[i]
	}
	base := 0
	for i := range r {
		base += pads[i] * ost[i]
	}
	idx := make([]int, r)
	return runFunc(func(*kernels.Pool) {
		for i := range y.f {
			y.f[i] = v
		}
		if x.size() == 0 || r == 0 {
			copy(y.f, x.f)
			return
		}
		inner := x.shape[r-1]
		clear(idx)
		off := base
		for src := 0; src < len(x.f); src += inner {
			copy(y.f[off:off+inner], x.f[src:src+inner])
			k := r - 2
			for ; k >= 0; k-- {
				idx[k]++
				off += ost[k]
				if idx[k] < x.shape[k] {
					break
				}
				off -= ost[k] * x.shape[k]
				idx[k] = 0
			}
		}
	}), nil
}
