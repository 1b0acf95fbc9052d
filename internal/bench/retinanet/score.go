package retinanet

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/cocoeval"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "detections as rows of seven float32, [image_idx, ymin, xmin, ymax, xmax, score, label], the box in [0, 1] of the image's height and width"

// MAPResult is the score of a RetinaNet (OpenImages) accuracy log, as
// accuracy-openimages.py computes it.
type MAPResult struct {
	// MAP is COCO's mean average precision (IoU 0.50:0.95), in percent.
	MAP float64
	// Images counts the images scored, NoResults those without a
	// detection, Detections the detections.
	Images, NoResults, Detections int
}

// Text is accuracy-openimages.py's result line: "mAP=37.551%".
func (r MAPResult) Text() string { return fmt.Sprintf("mAP=%.3f%%", r.MAP) }

// Value implements accuracy.Score.
func (r MAPResult) Value(m benchmarks.Metric) (float64, bool) { return r.MAP, m == benchmarks.MAP }

// Annotations is a COCO-format annotation file (openimages-mlperf.json):
// qsl_idx i is Images[i].
type Annotations struct {
	Images []struct {
		ID     int64 `json:"id"`
		Height int   `json:"height"`
		Width  int   `json:"width"`
	} `json:"images"`
	Annotations []struct {
		ID       int64      `json:"id"`
		ImageID  int64      `json:"image_id"`
		Category int64      `json:"category_id"`
		BBox     [4]float64 `json:"bbox"`
		Area     float64    `json:"area"`
		IsCrowd  *int       `json:"iscrowd"`
	} `json:"annotations"`
	Categories []struct {
		ID int64 `json:"id"`
	} `json:"categories"`
}

// ReadAnnotations reads a COCO-format annotation file.
//
// # Errors
//
// Malformed JSON, or an annotation without iscrowd (COCOeval needs it).
func ReadAnnotations(r io.Reader) (*Annotations, error) {
	var a Annotations
	if err := json.NewDecoder(r).Decode(&a); err != nil {
		return nil, fmt.Errorf("annotations: %w", err)
	}
	for i, an := range a.Annotations {
		if an.IsCrowd == nil {
			return nil, fmt.Errorf("annotations: annotation %d (id %d) has no iscrowd", i, an.ID)
		}
	}
	return &a, nil
}

// OpenImagesMAP scores a RetinaNet accuracy log against annotations as
// accuracy-openimages.py does. A response is rows of seven float32,
// [image_idx, ymin, xmin, ymax, xmax, score, label], the box in [0, 1]
// of the image's height and width; fewer than seven floats is an image
// without detections. With invMap the label is an index into the
// categories (the script's --use-inv-map, 1-based), else it is the
// category id. Entries for an image already seen are skipped.
//
// Coordinates are scaled in float64, as the script does under numpy 1.x
// (numpy 2 multiplies a float32 by an int in float32).
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log, a qsl_idx without an image, a
// response that is not whole rows, a row whose image_idx is not its
// qsl_idx (the script prints an error and goes on; a scorer must not), or
// a label outside the inverse map.
func OpenImagesMAP(r io.Reader, ann *Annotations, invMap bool) (MAPResult, error) {
	var res MAPResult
	seen := map[uint64]bool{}
	var dts []cocoeval.Box
	var imgIDs []int64
	// The inverse map is in file order, the evaluated categories sorted.
	invCats := make([]int64, len(ann.Categories))
	for i, c := range ann.Categories {
		invCats[i] = c.ID
	}
	catIDs := slices.Clone(invCats)
	slices.Sort(catIDs)
	catIDs = slices.Compact(catIDs)
	err := accuracy.ReadLog(r, func(e accuracy.Entry) error {
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if e.QSLIdx >= uint64(len(ann.Images)) {
			return fmt.Errorf("%w: qsl_idx %d has no image (the annotations have %d)", accuracy.ErrLog, e.QSLIdx, len(ann.Images))
		}
		img := ann.Images[e.QSLIdx]
		imgIDs = append(imgIDs, img.ID)
		if len(e.Data) < 7*4 {
			res.NoResults++
			return nil
		}
		if len(e.Data)%(7*4) != 0 {
			return fmt.Errorf("%w: qsl_idx %d: %d bytes, want rows of 7 float32", accuracy.ErrLog, e.QSLIdx, len(e.Data))
		}
		for row := 0; row < len(e.Data); row += 7 * 4 {
			var v [7]float32
			for k := range v {
				v[k] = math.Float32frombits(binary.LittleEndian.Uint32(e.Data[row+4*k:]))
			}
			if int64(v[0]) != int64(e.QSLIdx) {
				return fmt.Errorf("%w: qsl_idx %d: a detection's image_idx is %v", accuracy.ErrLog, e.QSLIdx, v[0])
			}
			h, w := float64(img.Height), float64(img.Width)
			ymin, xmin, ymax, xmax := float64(v[1])*h, float64(v[2])*w, float64(v[3])*h, float64(v[4])*w
			label := int64(v[6])
			if invMap {
				if label < 1 || label > int64(len(invCats)) {
					return fmt.Errorf("%w: qsl_idx %d: label %d outside the %d categories", accuracy.ErrLog, e.QSLIdx, label, len(invCats))
				}
				label = invCats[label-1]
			}
			bw, bh := xmax-xmin, ymax-ymin
			dts = append(dts, cocoeval.Box{
				ID: int64(len(dts) + 1), Image: img.ID, Category: label,
				BBox: [4]float64{xmin, ymin, bw, bh}, Area: bw * bh, Score: float64(v[5]),
			})
		}
		return nil
	})
	if err != nil {
		return MAPResult{}, err
	}
	slices.Sort(imgIDs)
	imgIDs = slices.Compact(imgIDs)
	inImages := map[int64]bool{}
	for _, id := range imgIDs {
		inImages[id] = true
	}
	inCats := map[int64]bool{}
	for _, c := range catIDs {
		inCats[c] = true
	}
	var gts []cocoeval.Box
	for _, a := range ann.Annotations {
		if inImages[a.ImageID] && inCats[a.Category] {
			gts = append(gts, cocoeval.Box{ID: a.ID, Image: a.ImageID, Category: a.Category, BBox: a.BBox, Area: a.Area, Crowd: *a.IsCrowd != 0})
		}
	}
	res.Images, res.Detections = len(imgIDs), len(dts)
	res.MAP = 100 * cocoeval.MAP(gts, dts, imgIDs, catIDs)
	return res, nil
}
