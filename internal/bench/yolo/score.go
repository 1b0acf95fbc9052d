package yolo

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/cocoeval"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "detections as rows of seven float32, [qsl_idx, ymin, xmin, ymax, xmax, score, category_id], the box in [0, 1] of the original image's height and width, the COCO category id"

// EmptyImagesRemoved is accuracy-coco.py's image map under
// --remove-48-empty-images: the images that have an annotation, in the
// order of the script's list(set(...)) of their ids gathered category
// by category, as indices into ann.Images.
func EmptyImagesRemoved(ann *cocoeval.Annotations) []int {
	byCat := map[int64][]int64{}
	for _, a := range ann.Annotations {
		byCat[a.Category] = append(byCat[a.Category], a.ImageID)
	}
	var ids []int64
	for _, c := range ann.Categories {
		ids = append(ids, byCat[c.ID]...)
	}
	at := map[int64]int{}
	for i, im := range ann.Images {
		at[im.ID] = i // pycocotools' imgs: the last image of an id
	}
	var m []int
	for _, id := range py.IntSetOrder(ids) {
		if i, ok := at[id]; ok {
			m = append(m, i)
		}
	}
	return m
}

// COCOMAP scores a YOLO accuracy log against COCO annotations as
// accuracy-coco.py does (cocoeval.Results reads the rows); with
// removeEmpty, qsl_idx indexes EmptyImagesRemoved's image map. The
// labels are category ids (the script's --use-inv-map is not the YOLO
// reference's).
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log or a response
// cocoeval.Results refuses.
func COCOMAP(r io.Reader, ann *cocoeval.Annotations, removeEmpty bool) (accuracy.MAPResult, error) {
	var imageMap []int
	if removeEmpty {
		imageMap = EmptyImagesRemoved(ann)
	}
	res := cocoeval.NewResults(ann, imageMap, false)
	err := accuracy.ReadLog(r, func(e accuracy.Entry) error {
		if err := res.Add(e.QSLIdx, e.Data); err != nil {
			return fmt.Errorf("%w: %w", accuracy.ErrLog, err)
		}
		return nil
	})
	if err != nil {
		return accuracy.MAPResult{}, err
	}
	m, images, dets := res.MAP()
	return accuracy.MAPResult{MAP: 100 * m, Images: images, NoResults: res.NoResults, Detections: dets}, nil
}

// Scorer is YOLO's: accuracy-coco.py's mAP. Its truth is the COCO
// directory (annotations/instances_val2017.json, as the script's
// --coco-dir) or the annotation file.
var Scorer = accuracy.Scorer{Name: "coco", Script: "vision/classification_and_detection/tools/accuracy-coco.py",
	Needs: []string{accuracy.NeedTruth}, Score: scoreCOCO}

func scoreCOCO(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	path := in.Truth
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, filepath.FromSlash(Annotations))
	}
	f, err := accuracy.OpenInput("coco annotations", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ann, err := cocoeval.ReadAnnotations(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return COCOMAP(log, ann, in.RemoveEmptyImages)
}
