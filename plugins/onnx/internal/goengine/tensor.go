package goengine

import (
	"fmt"
	"math"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// dtype is an element type the engine computes with.
type dtype = onnxpb.DataType

// tensor is a value during planning and running: a dtype, a concrete
// shape and, once bound, its elements in the slice its dtype selects.
type tensor struct {
	dt    dtype
	shape []int
	f     []float32
	i     []int64
	u8    []uint8
	// konst is true when the data is known at plan time (initializers,
	// Constant nodes, folded subgraphs); such values get no arena slot.
	konst bool
}

// size is the element count of the shape.
func (t *tensor) size() int { return numel(t.shape) }

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// maxElems bounds one tensor's element count (and keeps products of
// dimensions far from overflowing int on 32-bit wasm).
const maxElems = math.MaxInt32

// checkedNumel is numel with overflow and negative checks.
func checkedNumel(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d != 0 && n > maxElems/d {
			return 0, fmt.Errorf("shape %v has more than %d elements", shape, maxElems)
		}
		n *= d
	}
	return n, nil
}

// alloc gives t fresh zeroed storage for its shape and dtype.
func (t *tensor) alloc() {
	n := t.size()
	switch t.dt {
	case onnxpb.Float:
		t.f = make([]float32, n)
	case onnxpb.Int64:
		t.i = make([]int64, n)
	default:
		t.u8 = make([]uint8, n)
	}
}

// fromProto converts an initializer or Constant value.
func fromProto(p *onnxpb.Tensor) (*tensor, error) {
	t := &tensor{dt: p.DataType, konst: true}
	if _, err := p.Elements(); err != nil {
		return nil, err
	}
	t.shape = make([]int, len(p.Dims))
	for i, d := range p.Dims {
		t.shape[i] = int(d)
	}
	var err error
	switch p.DataType {
	case onnxpb.Float:
		t.f, err = p.Float32s()
	case onnxpb.Int64:
		t.i, err = p.Int64s()
	case onnxpb.Int32:
		// Widened: the engine computes integers in int64.
		t.dt = onnxpb.Int64
		t.i, err = p.Int64s()
	case onnxpb.Uint8, onnxpb.Bool:
		t.u8, err = p.Bytes()
	default:
		return nil, fmt.Errorf("%w: tensor %q of type %v", errUnsupported, p.Name, p.DataType)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ints returns the elements of an integer tensor as ints.
func (t *tensor) ints() ([]int, error) {
	if t.dt != onnxpb.Int64 {
		return nil, fmt.Errorf("want an int64 tensor, got %v", t.dt)
	}
	out := make([]int, len(t.i))
	for k, v := range t.i {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, fmt.Errorf("value %d out of range", v)
		}
		out[k] = int(v)
	}
	return out, nil
}

// scalarFloat returns the single element of a float tensor.
func (t *tensor) scalarFloat() (float32, error) {
	if t.dt != onnxpb.Float || len(t.f) != 1 {
		return 0, fmt.Errorf("want a float scalar, got %v%v", t.dt, t.shape)
	}
	return t.f[0], nil
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis, rank int) (int, error) {
	if axis < -rank || axis >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	return axis, nil
}

func shapeEq(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
