package accuracy

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// MAPResult is a detection benchmark's score as the COCO-evaluating
// official scripts compute it (accuracy-openimages.py for RetinaNet,
// accuracy-coco.py for YOLO).
type MAPResult struct {
	// MAP is COCO's mean average precision (IoU 0.50:0.95), in percent.
	MAP float64
	// Images counts the images scored, NoResults those without a
	// detection, Detections the detections.
	Images, NoResults, Detections int
}

// Text is the scripts' result line: "mAP=37.551%".
func (r MAPResult) Text() string { return fmt.Sprintf("mAP=%.3f%%", r.MAP) }

// Value implements Score.
func (r MAPResult) Value(m benchmarks.Metric) (float64, bool) { return r.MAP, m == benchmarks.MAP }
