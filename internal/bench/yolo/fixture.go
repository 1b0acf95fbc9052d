package yolo

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strconv"
)

// The fixtures' encoding, read back by the onnx plugin zoo's
// YOLOSignature: the letterboxed input's first plane averaged over
// cells of Cell×Cell pixels; class c < Slots (a YOLO class index) is
// answered by the cells of row 1+c, columns 1 to 5: cx, cy, w and h
// over 640, and the score.
const (
	Cell  = 32
	Slots = 8
)

// Detection is one detection a fixture image asks the model for, in
// levels of 255: the box's centre and size in the model input are
// CX/255·640 ... pixels, its score Score/255 (0: none).
type Detection struct {
	Class               int
	CX, CY, W, H, Score uint8
}

// Object is a ground-truth box of a fixture image, in pixels of the
// original image (COCO's [x, y, width, height]).
type Object struct {
	X, Y, W, H float64
	Category   int
	Crowd      bool
}

// Image is one image of a COCO fixture: its size, its ground truth, and
// the detections its pixels encode. An image with detections must be
// letterboxed without a resize (a side of 640, the other a multiple of
// 64 from 384 up) so that the cells hold their levels exactly.
type Image struct {
	FileName      string
	ID            int
	Width, Height int
	Truth         []Object
	Detections    []Detection
}

// COCO80To91 are the COCO category ids of YOLO's 80 classes, as the
// reference's yolo_loadgen.py maps them.
var COCO80To91 = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27, 28,
	31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60,
	61, 62, 63, 64, 65, 67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90}

// TruthOf is the ground-truth box that detection d of an image of w×h
// pixels finds exactly: its box scaled back from the model input.
func TruthOf(d Detection, w, h int) Object {
	b := LetterboxOf(w, h)
	v := func(l uint8) float64 { return float64(l) / 255 * Size }
	x := (v(d.CX) - v(d.W)/2 - float64(b.Left)) / b.Gain
	y := (v(d.CY) - v(d.H)/2 - float64(b.Top)) / b.Gain
	return Object{X: x, Y: y, W: v(d.W) / b.Gain, H: v(d.H) / b.Gain, Category: COCO80To91[d.Class]}
}

// WriteCOCO writes a COCO directory as the YOLO reference reads it into
// dir: val2017_safe/FILE_NAME (JPEG, quality 100) and
// annotations/instances_val2017.json with the images, their boxes and
// the categories (COCO ids).
func WriteCOCO(dir string, images []Image, categories []int) error {
	for _, sub := range []string{"annotations", "val2017_safe"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	type img struct {
		ID       int    `json:"id"`
		FileName string `json:"file_name"`
		Height   int    `json:"height"`
		Width    int    `json:"width"`
		License  int    `json:"license"`
		URL      string `json:"coco_url"`
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
		Images      []img        `json:"images"`
		Annotations []annotation `json:"annotations"`
		Categories  []category   `json:"categories"`
	}
	for _, im := range images {
		ann.Images = append(ann.Images, img{ID: im.ID, FileName: im.FileName, Height: im.Height, Width: im.Width, License: 4,
			URL: "http://images.cocodataset.org/val2017/" + im.FileName})
		for _, b := range im.Truth {
			crowd := 0
			if b.Crowd {
				crowd = 1
			}
			ann.Annotations = append(ann.Annotations, annotation{ID: len(ann.Annotations) + 1, ImageID: im.ID, Category: b.Category,
				BBox: [4]float64{b.X, b.Y, b.W, b.H}, Area: b.W * b.H, Crowd: crowd})
		}
		if err := writeImage(filepath.Join(dir, "val2017_safe", im.FileName), im); err != nil {
			return fmt.Errorf("image %s: %w", im.FileName, err)
		}
	}
	for _, c := range categories {
		ann.Categories = append(ann.Categories, category{ID: c, Name: "category " + strconv.Itoa(c)})
	}
	b, err := json.Marshal(ann)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, filepath.FromSlash(Annotations)), b, 0o644)
}

// writeImage paints an image: colour gradients, the cells of the slots
// (and a gray margin of a cell around them) at their levels, 0 where a
// slot has no detection.
func writeImage(path string, im Image) error {
	b := LetterboxOf(im.Width, im.Height)
	if len(im.Detections) > 0 && (b.W != im.Width || b.H != im.Height || b.Left%Cell != 0 || b.Top%Cell != 0) {
		return fmt.Errorf("%d×%d is resized or shifted off the cells by the letterbox; detections need a side of %d, the other a multiple of %d", im.Width, im.Height, Size, 2*Cell)
	}
	levels := map[[2]int]uint8{}
	for _, d := range im.Detections {
		if d.Class < 0 || d.Class >= Slots {
			return fmt.Errorf("detection of class %d: the slots are classes 0 to %d", d.Class, Slots-1)
		}
		for k, v := range []uint8{d.CX, d.CY, d.W, d.H, d.Score} {
			levels[[2]int{1 + d.Class, 1 + k}] = v
		}
	}
	pic := image.NewRGBA(image.Rect(0, 0, im.Width, im.Height))
	for y := range im.Height {
		for x := range im.Width {
			// The model input's cell of this pixel.
			mx := (float64(x)*b.Gain + float64(b.Left)) / Cell
			my := (float64(y)*b.Gain + float64(b.Top)) / Cell
			c := color.RGBA{R: uint8(x * 255 / im.Width), G: uint8(y * 255 / im.Height), B: uint8((x + y) % 256), A: 255}
			if mx < 7 && my < Slots+2 {
				v := levels[[2]int{int(my), int(mx)}]
				c = color.RGBA{R: v, G: v, B: v, A: 255}
			}
			pic.SetRGBA(x, y, c)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := jpeg.Encode(f, pic, &jpeg.Options{Quality: 100}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
