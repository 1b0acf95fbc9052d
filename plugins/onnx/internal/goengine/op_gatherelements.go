package goengine

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// gatherElementsOp is GatherElements: out[i][j][k] = x[index[i][j][k]][j][k]
// along axis (for axis 0), the indices computed at run time (a graph's
// edge lists), of the indices' shape, each dimension but axis at most
// the data's.
type gatherElementsOp struct{ axis int }

func newGatherElements(a *attrs, n *onnxpb.Node, _ int64) (op, error) {
	return &gatherElementsOp{axis: int(a.int("axis", 0))}, checkIO(n, 2, 2)
}

func (o *gatherElementsOp) infer(in, out []*tensor) error {
	x, idx := in[0], in[1]
	if idx.dt != onnxpb.Int64 {
		return unsupported("indices of %v", idx.dt)
	}
	if len(idx.shape) != len(x.shape) {
		return invalid("indices of rank %d for data of rank %d", len(idx.shape), len(x.shape))
	}
	axis, err := normAxis(o.axis, len(x.shape))
	if err != nil {
		return invalid("%v", err)
	}
	for k, d := range idx.shape {
		if k != axis && d > x.shape[k] {
			return invalid("indices %v past data %v in dimension %d", idx.shape, x.shape, k)
		}
	}
	out[0].dt, out[0].shape = x.dt, idx.shape
	return nil
}

// gatherElementsStep runs GatherElements; an index out of range fails the
// run (failed), naming it.
type gatherElementsStep struct {
	x, idx, y *tensor
	axis      int
	err       error
}

func (o *gatherElementsOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	axis, _ := normAxis(o.axis, len(in[0].shape))
	return &gatherElementsStep{x: in[0], idx: in[1], y: out[0], axis: axis}, nil
}

func (s *gatherElementsStep) run(*kernels.Pool) {
	s.err = nil
	xs, is := s.x.shape, s.idx.shape
	dim := xs[s.axis]
	// Element e of the indices at coordinates c reads the data at c with
	// c[axis] replaced by the index: the data offset is the sum of the
	// coordinates times the data's strides.
	strides := make([]int, len(xs))
	n := 1
	for k := len(xs) - 1; k >= 0; k-- {
		strides[k] = n
		n *= xs[k]
	}
	c := make([]int, len(is))
	for e, v := range s.idx.i {
		if v < 0 {
			v += int64(dim)
		}
		if v < 0 || v >= int64(dim) {
			s.err = fmt.Errorf("%w: index %d of dimension %d of %v", engine.ErrInput, s.idx.i[e], s.axis, xs)
			return
		}
		at := 0
		for k, ck := range c {
			if k == s.axis {
				ck = int(v)
			}
			at += ck * strides[k]
		}
		switch s.x.dt {
		case onnxpb.Float:
			s.y.f[e] = s.x.f[at]
		case onnxpb.Int64:
			s.y.i[e] = s.x.i[at]
		default:
			s.y.u8[e] = s.x.u8[at]
		}
		for k := len(c) - 1; k >= 0; k-- {
			if c[k]++; c[k] < is[k] {
				break
			}
			c[k] = 0
		}
	}
}

func (s *gatherElementsStep) failed() error { return s.err }

// failer is a step whose run can fail on the values it reads (an index
// out of range): the run ends with its error.
type failer interface{ failed() error }
