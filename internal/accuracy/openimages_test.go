package accuracy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openAnnotations(t *testing.T) *Annotations {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "openimages", "annotations", "openimages-mlperf.json"))
	require.NoError(t, err)
	defer f.Close()
	ann, err := ReadAnnotations(f)
	require.NoError(t, err)
	return ann
}

// The fixture testdata/openimages is written by
// tools/accuracyref/make_fixtures.py (7 images, 3 categories in unsorted
// file order, a crowd region, an image without detections, one not
// logged, a duplicate). The expected lines are what the official
// accuracy-openimages.py prints on it, run by tools/accuracyref/verify.sh
// with the COCOeval stand-in tools/accuracyref/shims/pycocotools.
func TestOpenImagesMAPFixture(t *testing.T) {
	t.Parallel()
	ann := openAnnotations(t)
	tests := []struct {
		name, log string
		inv       bool
		want      string
		noResults int
	}{
		{name: "category ids", log: "mlperf_log_accuracy.json", want: "mAP=22.413%", noResults: 1},
		// Here image 0 drew no detection either.
		{name: "inverse map", log: "inv_map_log.json", inv: true, want: "mAP=10.572%", noResults: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join("testdata", "openimages", tt.log))
			require.NoError(t, err)
			defer f.Close()
			res, err := OpenImagesMAP(f, ann, tt.inv)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Text())
			assert.Equal(t, 6, res.Images)
			assert.Equal(t, tt.noResults, res.NoResults)
		})
	}
}

// TestCOCOMAPByHand checks cocoMAP on cases small enough to work out:
// the AP of one category is the mean over 10 IoU thresholds of the
// precision sampled at 101 recall points.
func TestCOCOMAPByHand(t *testing.T) {
	t.Parallel()
	gt := cocoBox{id: 1, image: 1, category: 1, bbox: [4]float64{0, 0, 10, 10}, area: 100}
	det := func(id int64, score float64, bbox [4]float64) cocoBox {
		return cocoBox{id: id, image: 1, category: 1, bbox: bbox, area: bbox[2] * bbox[3], score: score}
	}
	tests := []struct {
		name string
		gts  []cocoBox
		dts  []cocoBox
		want float64
	}{
		{name: "exact", gts: []cocoBox{gt}, dts: []cocoBox{det(1, 0.9, gt.bbox)}, want: 1},
		// IoU 70/100 = 0.7 matches at 0.50, 0.55, 0.60, 0.65 and 0.70: 5 of 10.
		{name: "iou 0.7", gts: []cocoBox{gt}, dts: []cocoBox{det(1, 0.9, [4]float64{0, 0, 10, 7})}, want: 0.5},
		// A second detection of a taken object is a false positive after
		// the true one: precision stays 1 up to recall 1.
		{name: "duplicate after", gts: []cocoBox{gt}, dts: []cocoBox{det(1, 0.9, gt.bbox), det(2, 0.8, gt.bbox)}, want: 1},
		// A false positive ranked first: precision 1/2 at every recall.
		{name: "false positive first", gts: []cocoBox{gt}, dts: []cocoBox{det(1, 0.9, [4]float64{20, 20, 5, 5}), det(2, 0.8, gt.bbox)}, want: 0.5},
		// A detection in a crowd region is ignored, not false.
		{name: "crowd", gts: []cocoBox{gt, {id: 2, image: 1, category: 1, bbox: [4]float64{50, 50, 40, 40}, area: 1600, crowd: true}},
			dts: []cocoBox{det(1, 0.95, [4]float64{55, 55, 10, 10}), det(2, 0.9, gt.bbox)}, want: 1},
		{name: "no ground truth", dts: []cocoBox{det(1, 0.9, gt.bbox)}, want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, cocoMAP(tt.gts, tt.dts, []int64{1}, []int64{1}), 1e-12)
		})
	}
}

func TestOpenImagesMAPErrors(t *testing.T) {
	t.Parallel()
	ann := openAnnotations(t)
	tests := []struct {
		name    string
		entries []Entry
		inv     bool
		err     string
	}{
		{name: "no image", entries: []Entry{{QSLIdx: 7, Data: nil}}, err: "qsl_idx 7 has no image"},
		{name: "partial row", entries: []Entry{{QSLIdx: 0, Data: f32(0, 0, 0, 1, 1, 0.5, 1, 0)}}, err: "rows of 7 float32"},
		{name: "image_idx disagrees", entries: []Entry{{QSLIdx: 0, Data: f32(3, 0, 0, 1, 1, 0.5, 1)}}, err: "image_idx is 3"},
		{name: "label outside inverse map", entries: []Entry{{QSLIdx: 0, Data: f32(0, 0, 0, 1, 1, 0.5, 4)}}, inv: true, err: "label 4 outside the 3 categories"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := OpenImagesMAP(logOf(t, tt.entries), ann, tt.inv)
			require.ErrorIs(t, err, ErrLog)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}
