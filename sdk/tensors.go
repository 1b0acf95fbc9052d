package sdk

import (
	"fmt"
	"math"
	"slices"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// TensorSpec describes one named input tensor of every sample, in
// [Model.Inputs].
type TensorSpec struct {
	Name  string
	DType abi.DType
	// Shape is one sample's shape; [abi.Varies] (-1) marks a dimension
	// that differs from sample to sample (a sequence length, a volume).
	Shape []int
}

// Tensor is one tensor of one sample.
type Tensor struct {
	Name  string
	DType abi.DType
	// Shape is this sample's shape, every dimension known.
	Shape []int
	// Data is the tensor's elements, C order, little-endian: a part of
	// the sample's Data, read-only.
	Data []byte
}

// Elements returns the number of elements of t.
func (t Tensor) Elements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Tensor returns the sample's tensor called name.
func (s Sample) Tensor(name string) (Tensor, bool) { return findTensor(s.Tensors, name) }

// Tensor returns the sample's tensor called name.
func (s LoadedSample) Tensor(name string) (Tensor, bool) { return findTensor(s.Tensors, name) }

func findTensor(ts []Tensor, name string) (Tensor, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Tensor{}, false
}

// tensorRef is where a transport found one tensor of a sample, before the
// server checks it.
type tensorRef struct {
	tensor         uint32
	shape          []int64
	offset, length uint64
}

func refsFrom(rs []*backendv1.TensorRef) []tensorRef {
	if len(rs) == 0 {
		return nil
	}
	out := make([]tensorRef, len(rs))
	for i, r := range rs {
		out[i] = tensorRef{tensor: r.GetTensor(), shape: r.GetShape(), offset: r.GetOffset(), length: r.GetLength()}
	}
	return out
}

// inputsFrom converts and checks a LoadRequest's schema: at most
// abi.MaxTensors tensors with distinct, non-empty names, known dtypes,
// at most abi.MaxTensorRank dimensions of -1 (varies) or more.
func inputsFrom(specs []*backendv1.TensorSpec) ([]TensorSpec, error) {
	if len(specs) > abi.MaxTensors {
		return nil, Errorf(abi.InvalidArgument, "inputs: %d tensors, at most %d", len(specs), abi.MaxTensors)
	}
	out := make([]TensorSpec, 0, len(specs))
	for i, s := range specs {
		t := TensorSpec{Name: s.GetName(), DType: abi.DType(s.GetDtype())}
		bad := func(format string, args ...any) error {
			return Errorf(abi.InvalidArgument, "inputs: tensor %d (%q): %s", i, t.Name, fmt.Sprintf(format, args...))
		}
		switch {
		case t.Name == "":
			return nil, bad("no name")
		case slices.ContainsFunc(out, func(o TensorSpec) bool { return o.Name == t.Name }):
			return nil, bad("declared twice")
		case t.DType.Size() == 0:
			return nil, bad("dtype %q: want one of %v", t.DType, abi.DTypes())
		case len(s.GetShape()) > abi.MaxTensorRank:
			return nil, bad("%d dimensions, at most %d", len(s.GetShape()), abi.MaxTensorRank)
		}
		for _, d := range s.GetShape() {
			if d < abi.Varies || d > math.MaxInt32 {
				return nil, bad("dimension %d", d)
			}
			t.Shape = append(t.Shape, int(d))
		}
		out = append(out, t)
	}
	return out, nil
}

// resolveTensors checks a sample's tensor references against the schema
// and its bytes: one per input in order, of the input's rank and fixed
// dimensions, exactly as long as its shape needs, inside the sample.
func resolveTensors(inputs []TensorSpec, refs []tensorRef, data []byte) ([]Tensor, error) {
	if len(refs) != len(inputs) {
		return nil, fmt.Errorf("%d tensors, the inputs declare %d", len(refs), len(inputs))
	}
	out := make([]Tensor, len(refs))
	for k, r := range refs {
		in := inputs[k]
		if r.tensor != uint32(k) {
			return nil, fmt.Errorf("tensor %d refers to input %d: want the inputs' order", k, r.tensor)
		}
		shape, err := tensorShape(in, r.shape, r.length)
		if err != nil {
			return nil, err
		}
		if r.offset > uint64(len(data)) || r.length > uint64(len(data))-r.offset {
			return nil, fmt.Errorf("tensor %s: bytes [%d, %d+%d) are outside the sample's %d", in.Name, r.offset, r.offset, r.length, len(data))
		}
		out[k] = Tensor{Name: in.Name, DType: in.DType, Shape: shape, Data: data[r.offset : r.offset+r.length : r.offset+r.length]}
	}
	return out, nil
}

// tensorShape checks one tensor's shape and byte length against its
// input: the input's rank, its fixed dimensions, every dimension 0 or
// more, and exactly the bytes the shape needs.
func tensorShape(in TensorSpec, shape []int64, length uint64) ([]int, error) {
	if len(shape) != len(in.Shape) {
		return nil, fmt.Errorf("tensor %s has %d dimensions, want %d", in.Name, len(shape), len(in.Shape))
	}
	out := make([]int, len(shape))
	n := uint64(in.DType.Size())
	for j, d := range shape {
		if d < 0 || d > math.MaxInt32 || (in.Shape[j] != abi.Varies && d != int64(in.Shape[j])) {
			return nil, fmt.Errorf("tensor %s has shape %v, want %v", in.Name, shape, in.Shape)
		}
		if d > 0 && n > math.MaxUint64/uint64(d) {
			return nil, fmt.Errorf("tensor %s: shape %v overflows", in.Name, shape)
		}
		n *= uint64(d)
		out[j] = int(d)
	}
	if length != n {
		return nil, fmt.Errorf("tensor %s of shape %v has %d bytes, want %d", in.Name, shape, length, n)
	}
	return out, nil
}

// checkTensors checks tensors given directly (a conformance kit's
// samples) against the schema: one per input, in order, each its input's
// name and dtype, of a shape the input allows and as long as it needs.
func checkTensors(inputs []TensorSpec, ts []Tensor) error {
	if len(ts) != len(inputs) {
		return fmt.Errorf("%d tensors, the inputs declare %d", len(ts), len(inputs))
	}
	for k, t := range ts {
		if t.Name != inputs[k].Name || t.DType != inputs[k].DType {
			return fmt.Errorf("tensor %d is %s %s, want %s %s", k, t.Name, t.DType, inputs[k].Name, inputs[k].DType)
		}
		shape := make([]int64, len(t.Shape))
		for j, d := range t.Shape {
			shape[j] = int64(d)
		}
		if _, err := tensorShape(inputs[k], shape, uint64(len(t.Data))); err != nil {
			return err
		}
	}
	return nil
}
