package retinanet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// Detection is one detection a RetinaNet fixture image asks the model
// for: the box in [0, 1] of the image, its score and its label.
type Detection struct {
	XMin, YMin, XMax, YMax, Score float32
	Label                         int
}

// Box is a ground-truth box of an OpenImages fixture image, in pixels of
// the original image (COCO's [x, y, width, height]).
type Box struct {
	X, Y, W, H float64
	Category   int
	Crowd      bool
}

// OpenImage is one image of an OpenImages fixture.
type OpenImage struct {
	FileName      string
	Width, Height int
	Truth         []Box
	// Detections are what the model answers, in descending score; the
	// model reads DetectionSlots of them.
	Detections []Detection
}

// WriteOpenImages writes OpenImages as the RetinaNet reference
// preprocesses it into dir: FILE_NAME.npy, float32 [3, 800, 800], whose
// first 6·slots elements are each detection's xmin, ymin, xmax, ymax in
// pixels of 800×800, score and label (the zoo's RetinaNetSignature reads
// slots of them; unused slots score 0), and
// annotations/openimages-mlperf.json with the images, boxes and
// categories.
func WriteOpenImages(dir string, images []OpenImage, categories []int, slots int) error {
	if err := os.MkdirAll(filepath.Join(dir, "annotations"), 0o755); err != nil {
		return err
	}
	type image struct {
		ID       int    `json:"id"`
		FileName string `json:"file_name"`
		Height   int    `json:"height"`
		Width    int    `json:"width"`
	}
	type annotation struct {
		ID       int        `json:"id"`
		ImageID  int        `json:"image_id"`
		Category int        `json:"category_id"`
		BBox     [4]float64 `json:"bbox"`
		Area     float64    `json:"area"`
		Crowd    int        `json:"iscrowd"`
	}
	type category struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	var ann struct {
		Images      []image      `json:"images"`
		Annotations []annotation `json:"annotations"`
		Categories  []category   `json:"categories"`
	}
	spec := dataset.Spec{DType: dataset.Float32, Shape: []int{3, 800, 800}}
	img := make([]float32, spec.Elements())
	for i, im := range images {
		id := 100 + 7*i
		ann.Images = append(ann.Images, image{ID: id, FileName: im.FileName, Height: im.Height, Width: im.Width})
		for _, b := range im.Truth {
			crowd := 0
			if b.Crowd {
				crowd = 1
			}
			ann.Annotations = append(ann.Annotations, annotation{ID: len(ann.Annotations) + 1, ImageID: id, Category: b.Category,
				BBox: [4]float64{b.X, b.Y, b.W, b.H}, Area: b.W * b.H, Crowd: crowd})
		}
		if len(im.Detections) > slots {
			return fmt.Errorf("image %s: %d detections for %d slots", im.FileName, len(im.Detections), slots)
		}
		clear(img)
		for d, det := range im.Detections {
			copy(img[6*d:], []float32{det.XMin * 800, det.YMin * 800, det.XMax * 800, det.YMax * 800, det.Score, float32(det.Label)})
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, im.FileName)), 0o755); err != nil {
			return err
		}
		if err := dataset.WriteNPYFile(filepath.Join(dir, im.FileName+".npy"), spec, dataset.Float32Bytes(img)); err != nil {
			return err
		}
	}
	for _, c := range categories {
		ann.Categories = append(ann.Categories, category{ID: c, Name: "category " + strconv.Itoa(c)})
	}
	b, err := json.Marshal(ann)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, OpenImagesAnnotations), b, 0o644)
}
