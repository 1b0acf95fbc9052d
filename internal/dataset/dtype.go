package dataset

import (
	"fmt"
	"slices"
	"strings"
)

// DType is a sample element type.
type DType uint8

// The element types. The numbers are the codes of the compact format.
const (
	InvalidDType DType = iota
	Uint8
	Int8
	Int16
	Int32
	Int64
	Float16
	Float32
	Float64
	Bool
)

var dtypes = []struct {
	t     DType
	name  string
	descr []string // numpy descr strings meaning this type on disk
	size  int
}{
	{Uint8, "uint8", []string{"|u1", "u1", "<u1", "B"}, 1},
	{Int8, "int8", []string{"|i1", "i1", "<i1", "b"}, 1},
	{Int16, "int16", []string{"<i2"}, 2},
	{Int32, "int32", []string{"<i4"}, 4},
	{Int64, "int64", []string{"<i8"}, 8},
	{Float16, "float16", []string{"<f2"}, 2},
	{Float32, "float32", []string{"<f4"}, 4},
	{Float64, "float64", []string{"<f8"}, 8},
	{Bool, "bool", []string{"|b1", "b1"}, 1},
}

// String returns the type's name, e.g. "float32".
func (t DType) String() string {
	for _, d := range dtypes {
		if d.t == t {
			return d.name
		}
	}
	return fmt.Sprintf("dtype(%d)", uint8(t))
}

// Size returns the size of one element in bytes; 0 for an invalid type.
func (t DType) Size() int {
	for _, d := range dtypes {
		if d.t == t {
			return d.size
		}
	}
	return 0
}

// Descr returns the numpy descr string of t, e.g. "<f4".
func (t DType) Descr() string {
	for _, d := range dtypes {
		if d.t == t {
			return d.descr[0]
		}
	}
	return ""
}

// ParseDType reads a type name ("float32") or a numpy descr ("<f4").
func ParseDType(s string) (DType, error) {
	for _, d := range dtypes {
		if s == d.name || slices.Contains(d.descr, s) {
			return d.t, nil
		}
	}
	names := make([]string, len(dtypes))
	for i, d := range dtypes {
		names[i] = d.name
	}
	if strings.HasPrefix(s, ">") {
		return InvalidDType, fmt.Errorf("dtype %q is big-endian: want little-endian (%s)", s, strings.Join(names, ", "))
	}
	return InvalidDType, fmt.Errorf("dtype %q: want one of %s", s, strings.Join(names, ", "))
}

// Spec is the dtype and shape every sample of a data set has.
type Spec struct {
	DType DType
	// Shape is one sample's shape, e.g. [3 224 224]; empty for a scalar.
	Shape []int
}

// Elements returns the number of elements of one sample.
func (s Spec) Elements() int {
	n := 1
	for _, d := range s.Shape {
		n *= d
	}
	return n
}

// Bytes returns the size of one sample in bytes.
func (s Spec) Bytes() int { return s.Elements() * s.DType.Size() }

// Equal reports whether s and o describe the same samples.
func (s Spec) Equal(o Spec) bool { return s.DType == o.DType && slices.Equal(s.Shape, o.Shape) }

// String reads "float32[3 224 224]".
func (s Spec) String() string { return fmt.Sprintf("%s%v", s.DType, s.Shape) }

// ParseShape reads a shape written "3x224x224", "3,224,224" or
// "[3 224 224]".
func ParseShape(s string) ([]int, error) {
	t := strings.Trim(strings.TrimSpace(s), "[]()")
	f := strings.FieldsFunc(t, func(r rune) bool { return r == 'x' || r == ',' || r == ' ' })
	shape := make([]int, 0, len(f))
	for _, p := range f {
		var d int
		if _, err := fmt.Sscan(p, &d); err != nil || d <= 0 {
			return nil, fmt.Errorf("shape %q: dimension %q is not a positive integer", s, p)
		}
		shape = append(shape, d)
	}
	return shape, nil
}
