package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// describeSchema reads "uint8[1 28 28]" for one fixed-shape tensor, else
// every tensor: "input_ids int32[-1], input_mask int32[-1]".
func describeSchema(s dataset.Schema) string {
	if spec, ok := s.Single(); ok {
		return spec.String()
	}
	return s.String()
}

// shapeStats gathers, over the samples of a data set, the range of each
// varying dimension and of the samples' sizes, for `dataset info`.
type shapeStats struct {
	schema           dataset.Schema
	lo, hi           [][]int
	minBytes, maxByt int
	n                int
}

func newShapeStats(s dataset.Schema) *shapeStats { return &shapeStats{schema: s} }

func (st *shapeStats) add(shapes [][]int, bytes int) {
	if st.n == 0 {
		st.minBytes, st.maxByt = bytes, bytes
		for _, sh := range shapes {
			st.lo = append(st.lo, append([]int(nil), sh...))
			st.hi = append(st.hi, append([]int(nil), sh...))
		}
	}
	st.n++
	st.minBytes, st.maxByt = min(st.minBytes, bytes), max(st.maxByt, bytes)
	for k, sh := range shapes {
		for j, d := range sh {
			st.lo[k][j], st.hi[k][j] = min(st.lo[k][j], d), max(st.hi[k][j], d)
		}
	}
}

// print writes the sample line and one line per tensor.
func (st *shapeStats) print(w io.Writer) {
	if spec, ok := st.schema.Single(); ok {
		fmt.Fprintf(w, "sample   %s (%d bytes)\n", spec, spec.Bytes())
	} else if st.minBytes == st.maxByt {
		fmt.Fprintf(w, "sample   %d tensors, %d bytes\n", len(st.schema), st.minBytes)
	} else {
		fmt.Fprintf(w, "sample   %d tensors, %d to %d bytes\n", len(st.schema), st.minBytes, st.maxByt)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for k, t := range st.schema {
		shapes := fmt.Sprint(t.Shape)
		if !t.Fixed() && st.n > 0 {
			shapes = fmt.Sprintf("%v to %v", st.lo[k], st.hi[k])
		}
		fmt.Fprintf(tw, "tensor   %s\t%s\t%s\n", t.Name, t.DType, shapes)
	}
	tw.Flush()
}
