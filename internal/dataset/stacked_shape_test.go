package dataset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStackedByShape: a directory of .npy files with no side file and no
// label map is read as tensors stacked over samples when the files share
// one shape whose first axis is longer than one and their names are not
// sample names (a BERT set padded to 384 tokens); files named as samples,
// a label map, or files of different shapes keep the one-sample-per-file
// reading.
func TestStackedByShape(t *testing.T) {
	t.Parallel()
	spec := Spec{DType: Int32, Shape: []int{64, 12}}
	tests := []struct {
		name     string
		files    []string
		shapes   map[string][]int // a file's shape where it is not spec's
		labelMap bool
		// want: samples and tensors of the data set; 0 tensors means
		// one tensor per sample file.
		samples, tensors int
	}{
		{name: "bert padded", files: []string{"input_ids", "input_mask", "segment_ids"}, samples: 64, tensors: 3},
		{name: "numbered samples", files: []string{"0", "1", "2"}, samples: 3},
		{name: "image names", files: []string{"ILSVRC2012_val_00000001.JPEG", "ILSVRC2012_val_00000002.JPEG"}, samples: 2},
		{name: "case names", files: []string{"case_00000", "case_00001", "case_00002"}, samples: 3},
		{name: "label map", files: []string{"input_ids", "input_mask"}, labelMap: true, samples: 2},
		// One file: one sample of [64 12], as a directory of one
		// sample always was.
		{name: "one file", files: []string{"input"}, samples: 1},
		{name: "shapes differ", files: []string{"input_ids", "input_mask"}, shapes: map[string][]int{"input_mask": {64, 11}}, samples: 2},
		// A first axis of one stacks nothing.
		{name: "one sample each", files: []string{"input_ids", "input_mask"}, shapes: map[string][]int{"input_ids": {1, 12}, "input_mask": {1, 12}}, samples: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var labels []byte
			for i, f := range tt.files {
				s := spec
				if sh, ok := tt.shapes[f]; ok {
					s.Shape = sh
				}
				writeNPY(t, filepath.Join(dir, f+".npy"), s, sample(s, i))
				labels = append(labels, f+" 0\n"...)
			}
			if tt.labelMap {
				require.NoError(t, os.WriteFile(filepath.Join(dir, DefaultLabelMap), labels, 0o644))
			}
			d, err := Open(dir, Options{})
			if tt.name == "shapes differ" {
				// The per-sample reader takes the first file's shape and
				// finds the other does not match when it reads it.
				if err == nil {
					defer d.Close()
					err = ReadAll(d, nil)
				}
				require.ErrorIs(t, err, ErrMismatch)
				return
			}
			require.NoError(t, err)
			defer d.Close()
			assert.Equal(t, tt.samples, d.Len())
			if tt.tensors == 0 {
				assert.Len(t, d.Schema(), 1)
				return
			}
			require.Len(t, d.Schema(), tt.tensors)
			for k, ts := range d.Schema() {
				assert.Equal(t, tt.files[k], ts.Name)
				assert.Equal(t, []int{12}, ts.Shape)
			}
			f, ok := d.(interface{ Form() string })
			require.True(t, ok)
			assert.Contains(t, f.Form(), "no side file: every sample has its padded shape")
			// Sample 5 of every tensor is row 5 of its file.
			buf := make([]byte, 3*12*4)
			require.NoError(t, d.ReadSample(5, buf))
			for k := range tt.tensors {
				want := sample(spec, k)[5*48 : 6*48]
				assert.Equal(t, want, buf[k*48:(k+1)*48], "tensor %d", k)
			}
		})
	}
}

// TestStackedSideFileForm: a stacked directory with lengths.npy says so.
func TestStackedSideFileForm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, WriteStacked(dir, bertLike(t, 6)))
	d, err := Open(dir, Options{})
	require.NoError(t, err)
	defer d.Close()
	f, ok := d.(interface{ Form() string })
	require.True(t, ok)
	assert.Equal(t, "stacked .npy per tensor, 6 samples, shapes from lengths.npy", f.Form())
}
