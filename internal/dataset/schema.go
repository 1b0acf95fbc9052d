package dataset

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// DefaultTensorName names the tensor of a data set that has one and does
// not name it (one .npy per sample, a version-1 compact file).
const DefaultTensorName = "input"

// Varies marks a dimension of a [TensorSpec] that differs from sample to
// sample (a BERT sequence length, a 3D-UNet volume, DLRM's pairs).
const Varies = -1

// MaxTensors bounds the tensors of one sample.
const MaxTensors = 64

// TensorSpec is one named tensor of every sample of a data set.
type TensorSpec struct {
	Name  string
	DType DType
	// Shape is one sample's shape; [Varies] marks a dimension that differs
	// between samples.
	Shape []int
}

// Fixed reports whether every sample's tensor has the same shape.
func (t TensorSpec) Fixed() bool { return !slices.Contains(t.Shape, Varies) }

// String reads "input_ids int32[-1]".
func (t TensorSpec) String() string { return fmt.Sprintf("%s %s%v", t.Name, t.DType, t.Shape) }

// Schema is a data set's tensors, in the order a sample's bytes hold them:
// a sample is its tensors' raw little-endian bytes in C order,
// concatenated.
type Schema []TensorSpec

// SingleSchema is the schema of a data set of one fixed-shape tensor.
func SingleSchema(spec Spec) Schema {
	return Schema{{Name: DefaultTensorName, DType: spec.DType, Shape: spec.Shape}}
}

// Single returns the dtype and shape of a schema of one fixed-shape
// tensor, whatever its name; false for any other schema.
func (s Schema) Single() (Spec, bool) {
	if len(s) != 1 || !s[0].Fixed() {
		return Spec{}, false
	}
	return Spec{DType: s[0].DType, Shape: s[0].Shape}, true
}

// Fixed reports whether every sample has the same shapes.
func (s Schema) Fixed() bool {
	for _, t := range s {
		if !t.Fixed() {
			return false
		}
	}
	return true
}

// Shapes returns the shapes of a fixed schema's samples.
func (s Schema) Shapes() [][]int {
	out := make([][]int, len(s))
	for i, t := range s {
		out[i] = t.Shape
	}
	return out
}

// String reads "input_ids int32[-1], input_mask int32[-1]".
func (s Schema) String() string {
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// Index returns the position of the tensor called name, or -1.
func (s Schema) Index(name string) int {
	return slices.IndexFunc(s, func(t TensorSpec) bool { return t.Name == name })
}

// check reports what is wrong with a schema: no tensors, too many, an
// empty or repeated name, an invalid dtype, a dimension below Varies.
func (s Schema) check() error {
	if len(s) == 0 || len(s) > MaxTensors {
		return fmt.Errorf("%w: %d tensors, want 1 to %d", ErrCorrupt, len(s), MaxTensors)
	}
	for i, t := range s {
		switch {
		case t.Name == "" || len(t.Name) > 255:
			return fmt.Errorf("%w: tensor %d: name %q: want 1 to 255 bytes", ErrCorrupt, i, t.Name)
		case s.Index(t.Name) != i:
			return fmt.Errorf("%w: tensor %q twice", ErrCorrupt, t.Name)
		case t.DType.Size() == 0:
			return fmt.Errorf("%w: tensor %q: invalid dtype", ErrCorrupt, t.Name)
		case len(t.Shape) > MaxDims:
			return fmt.Errorf("%w: tensor %q: %d dimensions, at most %d", ErrCorrupt, t.Name, len(t.Shape), MaxDims)
		}
		for _, d := range t.Shape {
			if d < Varies || d > math.MaxInt32 {
				return fmt.Errorf("%w: tensor %q: dimension %d", ErrCorrupt, t.Name, d)
			}
		}
	}
	return nil
}

// CheckShapes reports whether shapes can be a sample of s: one shape per
// tensor, of its rank, with its fixed dimensions, every dimension 0 or
// more, and a sample size within the limit.
func (s Schema) CheckShapes(shapes [][]int) error {
	if len(shapes) != len(s) {
		return fmt.Errorf("%w: %d tensor shapes for %d tensors", ErrMismatch, len(shapes), len(s))
	}
	total := 0
	for i, t := range s {
		sh := shapes[i]
		if len(sh) != len(t.Shape) {
			return fmt.Errorf("%w: tensor %s has shape %v, want %d dimensions", ErrMismatch, t.Name, sh, len(t.Shape))
		}
		for k, d := range sh {
			if d < 0 || (t.Shape[k] != Varies && d != t.Shape[k]) {
				return fmt.Errorf("%w: tensor %s has shape %v, want %v", ErrMismatch, t.Name, sh, t.Shape)
			}
		}
		if err := checkSize(Spec{DType: t.DType, Shape: sh}); err != nil {
			return fmt.Errorf("tensor %s: %w", t.Name, err)
		}
		total += Spec{DType: t.DType, Shape: sh}.Bytes()
		if total > maxSampleBytes {
			return fmt.Errorf("%w: a sample of %d bytes or more, over the %d limit", ErrCorrupt, total, uint64(maxSampleBytes))
		}
	}
	return nil
}

// TensorLayout is where one tensor of a sample lies in the sample's bytes.
type TensorLayout struct {
	Shape          []int
	Offset, Length int
}

// Layout returns where each tensor of a sample of the given shapes lies
// (in schema order, concatenated), and the sample's size. The shapes were
// checked with CheckShapes.
func (s Schema) Layout(shapes [][]int) ([]TensorLayout, int) {
	out := make([]TensorLayout, len(s))
	off := 0
	for i, t := range s {
		n := Spec{DType: t.DType, Shape: shapes[i]}.Bytes()
		out[i] = TensorLayout{Shape: shapes[i], Offset: off, Length: n}
		off += n
	}
	return out, off
}

// SampleBytes returns the size of a sample of the given shapes.
func (s Schema) SampleBytes(shapes [][]int) int {
	n := 0
	for i, t := range s {
		n += Spec{DType: t.DType, Shape: shapes[i]}.Bytes()
	}
	return n
}

// varying marks as Varies each dimension of shape that differs from
// other; both have the same rank.
func varying(shape, other []int) {
	for k := range shape {
		if shape[k] != other[k] {
			shape[k] = Varies
		}
	}
}
