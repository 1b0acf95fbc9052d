package trt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseShapeRanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []ShapeRange
		wantErr string
	}{
		{name: "empty", in: " "},
		{name: "BERT", in: "input_ids:1/384/384,input_mask:1/384/384", want: []ShapeRange{
			{Name: "input_ids", Min: []int64{1}, Opt: []int64{384}, Max: []int64{384}},
			{Name: "input_mask", Min: []int64{1}, Opt: []int64{384}, Max: []int64{384}}}},
		// The name is what comes before the last colon.
		{name: "a name with a colon", in: "input_tensor:0:3x8/3x16/3x32", want: []ShapeRange{
			{Name: "input_tensor:0", Min: []int64{3, 8}, Opt: []int64{3, 16}, Max: []int64{3, 32}}}},
		{name: "no name", in: ":1/2/3", wantErr: "want NAME:MIN/OPT/MAX"},
		{name: "two shapes", in: "x:1/2", wantErr: "want three shapes"},
		{name: "ranks differ", in: "x:1/2x2/3", wantErr: "shapes of ranks 1, 2 and 1"},
		{name: "out of order", in: "x:4/2/3", wantErr: "dimension 1: want min <= opt <= max, got 4/2/3"},
		{name: "zero", in: "x:0/2/3", wantErr: `dimension "0" is not an integer`},
		{name: "twice", in: "x:1/2/3,x:1/2/3", wantErr: `input "x" given twice`},
		{name: "too many dimensions", in: "x:1x1x1x1x1x1x1x1/1/1", wantErr: "more than 7 dimensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseShapeRanges(tt.in)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzParseShapeRanges: what parses is well formed and reads back the same
// from its formatting.
func FuzzParseShapeRanges(f *testing.F) {
	for _, s := range []string{"", "input_ids:1/384/384", "a:0:1x2/1x3/1x4,b:5/5/5", "x:4/2/3", "x:1/2", ":1/2/3",
		"x:1x1x1x1x1x1x1x1/1/1", "x:9999999999999999999/1/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseShapeRanges(s)
		if err != nil {
			return
		}
		for _, r := range got {
			if r.Name == "" || len(r.Max) == 0 || len(r.Max) >= maxDims || len(r.Min) != len(r.Max) || len(r.Opt) != len(r.Max) {
				t.Fatalf("ParseShapeRanges(%q) = %v: malformed range", s, got)
			}
			for k := range r.Max {
				if r.Min[k] < 1 || r.Min[k] > r.Opt[k] || r.Opt[k] > r.Max[k] || r.Max[k] > maxShapeDim {
					t.Fatalf("ParseShapeRanges(%q) = %v: dimension %d out of order", s, got, k)
				}
			}
		}
		again, err := ParseShapeRanges(FormatShapeRanges(got))
		if err != nil || len(again) != len(got) {
			t.Fatalf("ParseShapeRanges(%q): formatted %q does not read back: %v", s, FormatShapeRanges(got), err)
		}
	})
}
