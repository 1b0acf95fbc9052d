package cocoeval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCOCOMAPByHand checks MAP on cases small enough to work out:
// the AP of one category is the mean over 10 IoU thresholds of the
// precision sampled at 101 recall points.
func TestCOCOMAPByHand(t *testing.T) {
	t.Parallel()
	gt := Box{ID: 1, Image: 1, Category: 1, BBox: [4]float64{0, 0, 10, 10}, Area: 100}
	det := func(id int64, score float64, bbox [4]float64) Box {
		return Box{ID: id, Image: 1, Category: 1, BBox: bbox, Area: bbox[2] * bbox[3], Score: score}
	}
	tests := []struct {
		name string
		gts  []Box
		dts  []Box
		want float64
	}{
		{name: "exact", gts: []Box{gt}, dts: []Box{det(1, 0.9, gt.BBox)}, want: 1},
		// IoU 70/100 = 0.7 matches at 0.50, 0.55, 0.60, 0.65 and 0.70: 5 of 10.
		{name: "iou 0.7", gts: []Box{gt}, dts: []Box{det(1, 0.9, [4]float64{0, 0, 10, 7})}, want: 0.5},
		// A second detection of a taken object is a false positive after
		// the true one: precision stays 1 up to recall 1.
		{name: "duplicate after", gts: []Box{gt}, dts: []Box{det(1, 0.9, gt.BBox), det(2, 0.8, gt.BBox)}, want: 1},
		// A false positive ranked first: precision 1/2 at every recall.
		{name: "false positive first", gts: []Box{gt}, dts: []Box{det(1, 0.9, [4]float64{20, 20, 5, 5}), det(2, 0.8, gt.BBox)}, want: 0.5},
		// A detection in a crowd region is ignored, not false.
		{name: "crowd", gts: []Box{gt, {ID: 2, Image: 1, Category: 1, BBox: [4]float64{50, 50, 40, 40}, Area: 1600, Crowd: true}},
			dts: []Box{det(1, 0.95, [4]float64{55, 55, 10, 10}), det(2, 0.9, gt.BBox)}, want: 1},
		{name: "no ground truth", dts: []Box{det(1, 0.9, gt.BBox)}, want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, MAP(tt.gts, tt.dts, []int64{1}, []int64{1}), 1e-12)
		})
	}
}
