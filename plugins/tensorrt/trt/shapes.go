package trt

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ShapeRange is the optimization profile range of one input's dimensions
// after the batch, for a build whose inputs vary in more than the batch
// (BERT's sequence length): TensorRT's min, opt and max shapes.
type ShapeRange struct {
	Name          string
	Min, Opt, Max []int64
}

// maxShapeDim bounds one dimension of a profile range: TensorRT's
// dimensions are int64, but no tensor of an MLPerf model comes near this.
const maxShapeDim = 1 << 30

// ParseShapeRanges reads the build_shapes option: comma-separated
// NAME:MIN/OPT/MAX, each shape the dimensions after the batch written
// AxBxC, e.g. "input_ids:1/384/384,input_mask:1/384/384". NAME is what
// comes before the entry's last colon, so that names such as
// "input_tensor:0" work.
//
// # Errors
//
// An entry without a name or three shapes, a dimension that is not a
// positive integer, shapes of different ranks, min > opt or opt > max in
// some dimension, and a name given twice are errors.
func ParseShapeRanges(s string) ([]ShapeRange, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []ShapeRange
	for _, entry := range strings.Split(s, ",") {
		r, err := parseShapeRange(strings.TrimSpace(entry))
		if err != nil {
			return nil, fmt.Errorf("build_shapes %q: %w", entry, err)
		}
		if slices.ContainsFunc(out, func(o ShapeRange) bool { return o.Name == r.Name }) {
			return nil, fmt.Errorf("build_shapes: input %q given twice", r.Name)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseShapeRange(entry string) (ShapeRange, error) {
	colon := strings.LastIndexByte(entry, ':')
	if colon <= 0 {
		return ShapeRange{}, errors.New("want NAME:MIN/OPT/MAX")
	}
	r := ShapeRange{Name: entry[:colon]}
	parts := strings.Split(entry[colon+1:], "/")
	if len(parts) != 3 {
		return ShapeRange{}, fmt.Errorf("want three shapes MIN/OPT/MAX, got %d", len(parts))
	}
	for i, dst := range []*[]int64{&r.Min, &r.Opt, &r.Max} {
		d, err := parseDims(parts[i])
		if err != nil {
			return ShapeRange{}, err
		}
		*dst = d
	}
	if len(r.Min) != len(r.Opt) || len(r.Opt) != len(r.Max) {
		return ShapeRange{}, fmt.Errorf("shapes of ranks %d, %d and %d", len(r.Min), len(r.Opt), len(r.Max))
	}
	for k := range r.Max {
		if r.Min[k] > r.Opt[k] || r.Opt[k] > r.Max[k] {
			return ShapeRange{}, fmt.Errorf("dimension %d: want min <= opt <= max, got %d/%d/%d", k+1, r.Min[k], r.Opt[k], r.Max[k])
		}
	}
	return r, nil
}

// parseDims reads AxBxC: at most maxDims-1 positive dimensions.
func parseDims(s string) ([]int64, error) {
	fields := strings.Split(s, "x")
	if len(fields) > maxDims-1 {
		return nil, fmt.Errorf("shape %q: more than %d dimensions after the batch", s, maxDims-1)
	}
	out := make([]int64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil || v < 1 || v > maxShapeDim {
			return nil, fmt.Errorf("shape %q: dimension %q is not an integer in [1, %d]", s, f, maxShapeDim)
		}
		out[i] = v
	}
	return out, nil
}

// FormatShapeRanges writes ranges as ParseShapeRanges reads them.
func FormatShapeRanges(ranges []ShapeRange) string {
	entries := make([]string, len(ranges))
	for i, r := range ranges {
		entries[i] = r.Name + ":" + formatDims(r.Min) + "/" + formatDims(r.Opt) + "/" + formatDims(r.Max)
	}
	return strings.Join(entries, ",")
}

func formatDims(d []int64) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, "x")
}
