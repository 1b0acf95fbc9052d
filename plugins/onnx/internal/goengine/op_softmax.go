package goengine

import (
	"math"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// softmaxOp is Softmax. Before opset 13 the input is coerced to 2-D at
// axis (default 1) and normalized over everything after it; from 13 it
// is normalized along axis (default -1) only.
type softmaxOp struct {
	axis    int
	coerce2 bool
}

func newSoftmax(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	o := &softmaxOp{coerce2: opset < 13}
	def := int64(-1)
	if o.coerce2 {
		def = 1
	}
	o.axis = int(a.int("axis", def))
	return o, checkIO(n, 1, 1)
}

// geometry returns the (outer, axis, inner) sizes of the normalization.
func (o *softmaxOp) geometry(shape []int) (outer, n, inner int, err error) {
	axis, err := normAxis(o.axis, len(shape))
	if err != nil {
		return 0, 0, 0, invalid("%v", err)
	}
	if o.coerce2 {
		return numel(shape[:axis]), numel(shape[axis:]), 1, nil
	}
	return numel(shape[:axis]), shape[axis], numel(shape[axis+1:]), nil
}

func (o *softmaxOp) infer(in, out []*tensor) error {
	x := in[0]
	if x.dt != onnxpb.Float {
		return unsupported("input type %v", x.dt)
	}
	if _, _, _, err := o.geometry(x.shape); err != nil {
		return err
	}
	out[0].dt, out[0].shape = onnxpb.Float, x.shape
	return nil
}

func (o *softmaxOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	outer, n, inner, err := o.geometry(in[0].shape)
	if err != nil {
		return nil, err
	}
	x, y := in[0].f, out[0].f
	return runFunc(func(*kernels.Pool) {
		for r := range outer {
			for c := range inner {
				base := r*n*inner + c
				m := float32(math.Inf(-1))
				for k := range n {
					m = max(m, x[base+k*inner])
				}
				var sum float64
				for k := range n {
					e := float32(math.Exp(float64(x[base+k*inner] - m)))
					y[base+k*inner] = e
					sum += float64(e)
				}
				inv := float32(1 / sum)
				for k := range n {
					y[base+k*inner] *= inv
				}
			}
		}
	}), nil
}

// argMaxOp is ArgMax over float input, producing int64 indices.
type argMaxOp struct {
	axis     int
	keepDims bool
	last     bool
}

func newArgMax(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	o := &argMaxOp{axis: int(a.int("axis", 0)), keepDims: a.int("keepdims", 1) != 0}
	if opset >= 12 {
		o.last = a.int("select_last_index", 0) != 0
	}
	return o, checkIO(n, 1, 1)
}

func (o *argMaxOp) infer(in, out []*tensor) error {
	x := in[0]
	if x.dt != onnxpb.Float {
		return unsupported("input type %v", x.dt)
	}
	axis, err := normAxis(o.axis, len(x.shape))
	if err != nil {
		return invalid("%v", err)
	}
	if x.shape[axis] == 0 {
		return invalid("ArgMax over an empty axis")
	}
	var shape []int
	for i, d := range x.shape {
		switch {
		case i != axis:
			shape = append(shape, d)
		case o.keepDims:
			shape = append(shape, 1)
		}
	}
	out[0].dt, out[0].shape = onnxpb.Int64, shape
	return nil
}

func (o *argMaxOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	x := in[0]
	axis, _ := normAxis(o.axis, len(x.shape))
	outer, n, inner := numel(x.shape[:axis]), x.shape[axis], numel(x.shape[axis+1:])
	xs, ys := x.f, out[0].i
	last := o.last
	return runFunc(func(*kernels.Pool) {
		for r := range outer {
			for c := range inner {
				base := r*n*inner + c
				best, bi := xs[base], 0
				for k := 1; k < n; k++ {
					v := xs[base+k*inner]
					if v > best || (last && v == best) {
						best, bi = v, k
					}
				}
				ys[r*inner+c] = int64(bi)
			}
		}
	}), nil
}
