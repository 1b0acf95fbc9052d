package retinanet

import (
	"fmt"
	"io"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/cocoeval"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "detections as rows of seven float32, [image_idx, ymin, xmin, ymax, xmax, score, label], the box in [0, 1] of the image's height and width"

// Annotations is a COCO-format annotation file (openimages-mlperf.json):
// qsl_idx i is Images[i].
type Annotations = cocoeval.Annotations

// ReadAnnotations reads a COCO-format annotation file.
func ReadAnnotations(r io.Reader) (*Annotations, error) { return cocoeval.ReadAnnotations(r) }

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
func OpenImagesMAP(r io.Reader, ann *Annotations, invMap bool) (accuracy.MAPResult, error) {
	res := cocoeval.NewResults(ann, nil, invMap)
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
