package yolo

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/dataset/datasettest"
)

func TestLetterboxOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		w, h int
		want Box
	}{
		{name: "kept", w: 640, h: 576, want: Box{W: 640, H: 576, Left: 0, Top: 32, Gain: 1}},
		{name: "grown", w: 320, h: 288, want: Box{W: 640, H: 576, Left: 0, Top: 32, Gain: 2}},
		// 427·1.0 = 427 rows: 213 of border, round(106.5-0.1) = 106 above.
		{name: "odd border", w: 640, h: 427, want: Box{W: 640, H: 427, Left: 0, Top: 106, Gain: 1}},
		// COCO's 500×375: gain 1.28, 480 rows, 80 above.
		{name: "coco", w: 500, h: 375, want: Box{W: 640, H: 480, Left: 0, Top: 80, Gain: 1.28}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, LetterboxOf(tt.w, tt.h))
		})
	}
}

func f32At(b []byte, k int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])) }

// cellMean is the mean of the first plane over cell (row, col).
func cellMean(b []byte, row, col int) float64 {
	s := 0.0
	for y := row * Cell; y < (row+1)*Cell; y++ {
		for x := col * Cell; x < (col+1)*Cell; x++ {
			s += float64(f32At(b, y*Size+x))
		}
	}
	return s / (Cell * Cell)
}

func TestCOCOReader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	images := []Image{
		{FileName: "000000000139.jpg", ID: 139, Width: 640, Height: 576,
			Detections: []Detection{{Class: 2, CX: 100, CY: 120, W: 40, H: 60, Score: 230}}},
		{FileName: "000000000285.jpg", ID: 285, Width: 320, Height: 288},
		{FileName: "000000000632.jpg", ID: 632, Width: 576, Height: 640,
			Detections: []Detection{{Class: 0, CX: 10, CY: 20, W: 30, H: 40, Score: 50}}},
	}
	require.NoError(t, WriteCOCO(dir, images, []int{1, 3}))
	d, err := Reader.Open(dir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Contains(t, dataset.Form(d), "letterboxed")
	assert.Equal(t, "images float32[3 640 640], orig_shape int32[2]", d.Schema().String())
	assert.Equal(t, filepath.Join(dir, Annotations), dataset.Truth(d))
	all := datasettest.ReadAll(t, d)
	// The cells hold their levels exactly (gray, JPEG at quality 100);
	// the border is 114.
	for k, v := range []float64{100, 120, 40, 60, 230} {
		assert.InDelta(t, v/255, cellMean(all[0], 3, 1+k), 1e-6, "cell %d", k)
	}
	assert.InDelta(t, 0, cellMean(all[0], 1, 5), 1e-6)
	assert.InDelta(t, 114.0/255, f32At(all[0], 0), 1e-7)
	assert.InDelta(t, 50.0/255, cellMean(all[2], 1, 5), 1e-6)
	// The grown image keeps its slots at 0 and its border.
	assert.InDelta(t, 0, cellMean(all[1], 1, 5), 1e-6)
	assert.InDelta(t, 114.0/255, f32At(all[1], Size*Size-1), 1e-7)
	shape := all[1][4*3*Size*Size:]
	assert.Equal(t, []uint32{288, 320}, []uint32{binary.LittleEndian.Uint32(shape), binary.LittleEndian.Uint32(shape[4:])})

	// Errors name the file and the record.
	require.NoError(t, os.Remove(filepath.Join(dir, "val2017_safe", "000000000285.jpg")))
	_, err = Reader.Open(dir, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrNotFound)
	assert.ErrorContains(t, err, `sample 1: not found: val2017_safe/000000000285.jpg (image "000000000285.jpg" of instances_val2017.json)`)
	require.NoError(t, WriteCOCO(dir, images, []int{1, 3}))
	ann, err := os.ReadFile(filepath.Join(dir, Annotations))
	require.NoError(t, err)
	ann = bytes.Replace(ann, []byte(`"height":288,"width":320`), []byte(`"height":288,"width":321`), 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, Annotations), ann, 0o644))
	d2, err := Reader.Open(dir, dataset.Options{})
	require.NoError(t, err)
	sch := d2.Schema()
	buf := make([]byte, sch.SampleBytes([][]int{{3, Size, Size}, {2}}))
	err = d2.ReadSample(1, buf)
	require.ErrorIs(t, err, dataset.ErrMismatch)
	assert.ErrorContains(t, err, "sample 1: dtype or shape mismatch: 000000000285.jpg is 320×288, its annotation says 321×288")
	require.NoError(t, os.WriteFile(filepath.Join(dir, Annotations), []byte(`{"images": [{"file_name": "../x.jpg", "width": 1, "height": 1}]}`), 0o644))
	_, err = Reader.Open(dir, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, `image 0 has file_name "../x.jpg"`)
}

// FuzzCOCOAnnotations: any annotation file opens or fails with an error.
func FuzzCOCOAnnotations(f *testing.F) {
	f.Add([]byte(`{"images": [{"id": 1, "file_name": "a.jpg", "width": 2, "height": 2}]}`))
	f.Add([]byte(`{"images": []}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "ann.json")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		if d, err := OpenCOCO(dir, p); err == nil {
			assert.Positive(t, d.Len())
		}
	})
}
