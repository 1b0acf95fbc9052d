package cocoeval

import (
	"math"
	"slices"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// Box is one annotation (a ground truth) or detection.
type Box struct {
	ID       int64
	Image    int64
	Category int64
	// BBox is x, y, width, height.
	BBox  [4]float64
	Area  float64
	Score float64
	Crowd bool
}

// linspace is numpy's: start + i*step, the last value exactly stop.
func linspace(start, stop float64, n int) []float64 {
	step := (stop - start) / float64(n-1)
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)*step + start
	}
	v[n-1] = stop
	return v
}

var (
	cocoIoUThrs = linspace(0.5, 0.95, 10)
	cocoRecThrs = linspace(0, 1, 101)
)

const cocoMaxDet = 100

// bboxIoU is pycocotools' bbIou: for a crowd ground truth the union is
// the detection's area alone.
func bboxIoU(d, g [4]float64, crowd bool) float64 {
	w := math.Min(d[0]+d[2], g[0]+g[2]) - math.Max(d[0], g[0])
	if w <= 0 {
		return 0
	}
	h := math.Min(d[1]+d[3], g[1]+g[3]) - math.Max(d[1], g[1])
	if h <= 0 {
		return 0
	}
	i := w * h
	u := d[2]*d[3] + g[2]*g[3] - i
	if crowd {
		u = d[2] * d[3]
	}
	return i / u
}

// cocoImageEval is one image and category evaluated over all areas
// ("all" only: stats[0] needs no other range).
type cocoImageEval struct {
	scores []float64
	// matched[t][d] and ignored[t][d] per IoU threshold and detection.
	matched, ignored [][]bool
	gtIgnore         []bool
}

// evaluateImage matches gts and dts of one image and category; dts are
// in any order, gts in annotation order.
func evaluateImage(gts, dts []Box) *cocoImageEval {
	if len(gts) == 0 && len(dts) == 0 {
		return nil
	}
	// Ground truths not ignored first (a stable sort), detections by
	// descending score (stable), at most cocoMaxDet.
	ignore := func(g Box) bool { return g.Crowd || outOfArea(g.Area) }
	gts = slices.Clone(gts)
	slices.SortStableFunc(gts, func(a, b Box) int { return boolInt(ignore(a)) - boolInt(ignore(b)) })
	dts = slices.Clone(dts)
	slices.SortStableFunc(dts, py.Descending(func(d Box) float64 { return d.Score }))
	dts = dts[:min(len(dts), cocoMaxDet)]
	e := &cocoImageEval{gtIgnore: make([]bool, len(gts))}
	for i, g := range gts {
		e.gtIgnore[i] = ignore(g)
	}
	ious := make([][]float64, len(dts))
	for d := range dts {
		ious[d] = make([]float64, len(gts))
		for g := range gts {
			ious[d][g] = bboxIoU(dts[d].BBox, gts[g].BBox, gts[g].Crowd)
		}
	}
	for _, d := range dts {
		e.scores = append(e.scores, d.Score)
	}
	for range cocoIoUThrs {
		e.matched = append(e.matched, make([]bool, len(dts)))
		e.ignored = append(e.ignored, make([]bool, len(dts)))
	}
	for t, thr := range cocoIoUThrs {
		if len(gts) == 0 {
			break
		}
		gtTaken := make([]bool, len(gts))
		for d := range dts {
			best, m := math.Min(thr, 1-1e-10), -1
			for g := range gts {
				if gtTaken[g] && !gts[g].Crowd {
					continue
				}
				// Past the ground truths that count, once one matched.
				if m > -1 && !e.gtIgnore[m] && e.gtIgnore[g] {
					break
				}
				if ious[d][g] < best {
					continue
				}
				best, m = ious[d][g], g
			}
			if m == -1 {
				continue
			}
			// pycocotools records the ground truth's id: an id of 0
			// reads as "no match".
			e.matched[t][d] = gts[m].ID != 0
			e.ignored[t][d] = e.gtIgnore[m]
			gtTaken[m] = true
		}
	}
	// An unmatched detection outside the area range is ignored too.
	for t := range e.matched {
		for d := range dts {
			if !e.matched[t][d] && outOfArea(dts[d].Area) {
				e.ignored[t][d] = true
			}
		}
	}
	return e
}

// outOfArea reports an area outside COCO's "all" range, [0, 1e10].
func outOfArea(a float64) bool { return a < 0 || a > 1e10 }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MAP returns COCOeval's stats[0] (AP at IoU 0.50:0.95, all areas,
// 100 detections) over images and the sorted categories; -1 when no
// category has ground truth, as pycocotools.
func MAP(gts, dts []Box, images, categories []int64) float64 {
	type key struct{ img, cat int64 }
	gtBy, dtBy := map[key][]Box{}, map[key][]Box{}
	for _, g := range gts {
		k := key{g.Image, g.Category}
		gtBy[k] = append(gtBy[k], g)
	}
	for _, d := range dts {
		k := key{d.Image, d.Category}
		dtBy[k] = append(dtBy[k], d)
	}
	sum, n := 0.0, 0
	for _, cat := range categories {
		var evals []*cocoImageEval
		for _, img := range images {
			if e := evaluateImage(gtBy[key{img, cat}], dtBy[key{img, cat}]); e != nil {
				evals = append(evals, e)
			}
		}
		for _, p := range categoryPrecision(evals) {
			if p > -1 {
				sum += p
				n++
			}
		}
	}
	if n == 0 {
		return -1
	}
	return sum / float64(n)
}

// categoryPrecision is accumulate() for one category: the precision at
// each IoU threshold and recall point, or nil when the category has no
// ground truth that counts.
func categoryPrecision(evals []*cocoImageEval) []float64 {
	if len(evals) == 0 {
		return nil
	}
	type det struct {
		score float64
		e     *cocoImageEval
		i     int
	}
	var all []det
	npig := 0
	for _, e := range evals {
		for i, s := range e.scores {
			all = append(all, det{s, e, i})
		}
		for _, ig := range e.gtIgnore {
			if !ig {
				npig++
			}
		}
	}
	if npig == 0 {
		return nil
	}
	slices.SortStableFunc(all, py.Descending(func(d det) float64 { return d.score }))
	out := make([]float64, 0, len(cocoIoUThrs)*len(cocoRecThrs))
	rc := make([]float64, len(all))
	pr := make([]float64, len(all))
	for t := range cocoIoUThrs {
		tp, fp := 0.0, 0.0
		for i, d := range all {
			if !d.e.ignored[t][d.i] {
				if d.e.matched[t][d.i] {
					tp++
				} else {
					fp++
				}
			}
			rc[i] = tp / float64(npig)
			pr[i] = tp / (fp + tp + 0x1p-52)
		}
		for i := len(pr) - 1; i > 0; i-- {
			if pr[i] > pr[i-1] {
				pr[i-1] = pr[i]
			}
		}
		// np.searchsorted(rc, recThrs, side="left"); the first recall
		// point past the curve ends the filling, the rest stay 0.
		filled := true
		for _, r := range cocoRecThrs {
			q := 0.0
			if filled {
				k, _ := slices.BinarySearch(rc, r)
				if k < len(pr) {
					q = pr[k]
				} else {
					filled = false
				}
			}
			out = append(out, q)
		}
	}
	return out
}
