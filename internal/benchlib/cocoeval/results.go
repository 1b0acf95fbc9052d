package cocoeval

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Annotations is a COCO-format annotation file (instances_val2017.json,
// openimages-mlperf.json), as the MLPerf detection scripts read it.
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

// ErrRow is wrapped by Results.Add's errors about a response.
var ErrRow = errors.New("bad detection response")

// Results gathers the responses of an MLPerf detection accuracy log as
// accuracy-openimages.py and accuracy-coco.py read them: a response is
// rows of seven float32, [image_idx, ymin, xmin, ymax, xmax, score,
// label], the box in [0, 1] of the image's height and width; fewer than
// seven floats is an image without detections. A qsl_idx names an
// image of the image map, an entry for a qsl_idx already seen is
// skipped. With the inverse map the label is an index into the
// categories (--use-inv-map, 1-based), else it is the category id.
//
// Coordinates are scaled in float64, as the scripts do under numpy 1.x
// (numpy 2 multiplies a float32 by an int in float32).
type Results struct {
	ann      *Annotations
	imageMap []int
	invCats  []int64
	catIDs   []int64
	invMap   bool
	seen     map[uint64]bool
	dts      []Box
	imgIDs   []int64
	// NoResults counts the images without a detection.
	NoResults int
}

// NewResults gathers responses against ann; imageMap[qsl_idx] is the
// image's index in ann.Images (nil: qsl_idx is that index).
func NewResults(ann *Annotations, imageMap []int, invMap bool) *Results {
	if imageMap == nil {
		imageMap = make([]int, len(ann.Images))
		for i := range imageMap {
			imageMap[i] = i
		}
	}
	// The inverse map is in file order, the evaluated categories sorted.
	invCats := make([]int64, len(ann.Categories))
	for i, c := range ann.Categories {
		invCats[i] = c.ID
	}
	catIDs := slices.Clone(invCats)
	slices.Sort(catIDs)
	return &Results{ann: ann, imageMap: imageMap, invCats: invCats, catIDs: slices.Compact(catIDs), invMap: invMap, seen: map[uint64]bool{}}
}

// Add reads the response of qsl_idx.
//
// # Errors
//
// Wraps [ErrRow] for a qsl_idx without an image, a response that is not
// whole rows, a row whose image_idx is not its qsl_idx (the scripts print
// an error and go on; a scorer must not), or a label outside the inverse
// map.
func (r *Results) Add(qslIdx uint64, data []byte) error {
	if r.seen[qslIdx] {
		return nil
	}
	r.seen[qslIdx] = true
	if qslIdx >= uint64(len(r.imageMap)) {
		return fmt.Errorf("%w: qsl_idx %d has no image (the annotations have %d)", ErrRow, qslIdx, len(r.imageMap))
	}
	img := r.ann.Images[r.imageMap[qslIdx]]
	r.imgIDs = append(r.imgIDs, img.ID)
	if len(data) < 7*4 {
		r.NoResults++
		return nil
	}
	if len(data)%(7*4) != 0 {
		return fmt.Errorf("%w: qsl_idx %d: %d bytes, want rows of 7 float32", ErrRow, qslIdx, len(data))
	}
	for row := 0; row < len(data); row += 7 * 4 {
		var v [7]float32
		for k := range v {
			v[k] = math.Float32frombits(binary.LittleEndian.Uint32(data[row+4*k:]))
		}
		if int64(v[0]) != int64(qslIdx) {
			return fmt.Errorf("%w: qsl_idx %d: a detection's image_idx is %v", ErrRow, qslIdx, v[0])
		}
		h, w := float64(img.Height), float64(img.Width)
		ymin, xmin, ymax, xmax := float64(v[1])*h, float64(v[2])*w, float64(v[3])*h, float64(v[4])*w
		label := int64(v[6])
		if r.invMap {
			if label < 1 || label > int64(len(r.invCats)) {
				return fmt.Errorf("%w: qsl_idx %d: label %d outside the %d categories", ErrRow, qslIdx, label, len(r.invCats))
			}
			label = r.invCats[label-1]
		}
		bw, bh := xmax-xmin, ymax-ymin
		r.dts = append(r.dts, Box{
			ID: int64(len(r.dts) + 1), Image: img.ID, Category: label,
			BBox: [4]float64{xmin, ymin, bw, bh}, Area: bw * bh, Score: float64(v[5]),
		})
	}
	return nil
}

// MAP is COCOeval's stats[0] over the images seen and the annotations'
// categories, with the number of images and detections it counted.
func (r *Results) MAP() (mAP float64, images, detections int) {
	imgIDs := slices.Clone(r.imgIDs)
	slices.Sort(imgIDs)
	imgIDs = slices.Compact(imgIDs)
	inImages := map[int64]bool{}
	for _, id := range imgIDs {
		inImages[id] = true
	}
	inCats := map[int64]bool{}
	for _, c := range r.catIDs {
		inCats[c] = true
	}
	var gts []Box
	for _, a := range r.ann.Annotations {
		if inImages[a.ImageID] && inCats[a.Category] {
			gts = append(gts, Box{ID: a.ID, Image: a.ImageID, Category: a.Category, BBox: a.BBox, Area: a.Area, Crowd: *a.IsCrowd != 0})
		}
	}
	return MAP(gts, r.dts, imgIDs, r.catIDs), len(imgIDs), len(r.dts)
}
