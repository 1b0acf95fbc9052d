package yolo

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/imaging"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// COCO as the YOLO reference reads it: a directory with
// annotations/instances_val2017.json (the safe subset's annotations,
// as the published data set names them; instances_val2017_safe.json as
// create_safe_annotations.py writes them) and the images it lists under
// val2017_safe/ (or val2017/, or the directory itself). The sample order
// is the annotations' "images" order, which accuracy-coco.py maps
// qsl_idx onto.
const (
	// Annotations is the annotation file under the COCO directory, the
	// one accuracy-coco.py reads.
	Annotations = "annotations/instances_val2017.json"
	// SafeAnnotations is the name create_safe_annotations.py writes.
	SafeAnnotations = "annotations/instances_val2017_safe.json"
	// ImagesTensor is the letterboxed image, float32 [3, 640, 640]: the
	// input of the reference's ONNX export.
	ImagesTensor = "images"
	// ShapeTensor is the original image's height and width, int32 [2]:
	// what a SUT scales its boxes back with.
	ShapeTensor = "orig_shape"
)

// imageDirs are where the images are looked for, in order.
var imageDirs = []string{"val2017_safe", "val2017", "."}

// cocoImage is one image the annotations list.
type cocoImage struct {
	ID       json.RawMessage `json:"id"`
	FileName string          `json:"file_name"`
	Width    int             `json:"width"`
	Height   int             `json:"height"`
}

// annotationsOf returns the annotation file of a COCO directory: labelMap
// when it is a .json file, else the first of Annotations and
// SafeAnnotations there; "" when there is none.
func annotationsOf(dir, labelMap string) string {
	if filepath.Ext(labelMap) == ".json" {
		return labelMap
	}
	for _, a := range []string{Annotations, SafeAnnotations} {
		if p := filepath.Join(dir, a); dataset.IsFile(p) {
			return p
		}
	}
	return ""
}

// readImages reads the images of a COCO annotation file, in order.
func readImages(path string) ([]cocoImage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ann struct {
		Images []cocoImage `json:"images"`
	}
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(&ann); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
	}
	if len(ann.Images) == 0 {
		return nil, fmt.Errorf("%s: %w: no images", path, dataset.ErrCorrupt)
	}
	for i, im := range ann.Images {
		if !filepath.IsLocal(im.FileName) {
			return nil, fmt.Errorf("%s: %w: image %d has file_name %q", path, dataset.ErrCorrupt, i, im.FileName)
		}
		if im.Width <= 0 || im.Height <= 0 {
			return nil, fmt.Errorf("%s: %w: image %d (%s) is %d×%d", path, dataset.ErrCorrupt, i, im.FileName, im.Width, im.Height)
		}
	}
	return ann.Images, nil
}

// imagesDir returns the directory under dir holding the first image.
func imagesDir(dir, first string) string {
	for _, d := range imageDirs {
		if dataset.IsFile(filepath.Join(dir, d, first)) {
			return filepath.Join(dir, d)
		}
	}
	return ""
}

// coco is an open COCO directory.
type coco struct {
	dir, images, ann string
	list             []cocoImage
}

var _ dataset.Dataset = (*coco)(nil)

// OpenCOCO opens a COCO directory with its annotation file. Every image
// the annotations list must be there: accuracy-coco.py maps qsl_idx onto
// the annotations' images, so a data set that skips one (as the
// reference's loader does, silently) scores every later image against
// the wrong boxes.
func OpenCOCO(dir, annotations string) (dataset.Dataset, error) {
	list, err := readImages(annotations)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	d := &coco{dir: dir, ann: annotations, list: list, images: imagesDir(dir, list[0].FileName)}
	if d.images == "" {
		return nil, fmt.Errorf("data set %s: sample 0: %w: image %q of %s in %v", dir, dataset.ErrNotFound, list[0].FileName, filepath.Base(annotations), imageDirs)
	}
	for i, im := range list {
		if !dataset.IsFile(filepath.Join(d.images, im.FileName)) {
			return nil, fmt.Errorf("data set %s: sample %d: %w: %s (image %q of %s)", dir, i, dataset.ErrNotFound,
				filepath.Join(filepath.Base(d.images), im.FileName), im.FileName, filepath.Base(annotations))
		}
	}
	return d, nil
}

func (d *coco) Name() string  { return d.dir }
func (d *coco) Len() int      { return len(d.list) }
func (d *coco) Labels() []int { return nil }
func (d *coco) Close() error  { return nil }
func (d *coco) Truth() string { return d.ann }
func (d *coco) Form() string {
	return "COCO images with their annotations, letterboxed to 640×640 as the YOLO reference's ultralytics predictor does"
}

func (d *coco) Schema() dataset.Schema {
	return dataset.Schema{
		{Name: ImagesTensor, DType: dataset.Float32, Shape: []int{3, Size, Size}},
		{Name: ShapeTensor, DType: dataset.Int32, Shape: []int{2}},
	}
}

func (d *coco) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.list) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.dir, i, len(d.list))
	}
	return [][]int{{3, Size, Size}, {2}}, nil
}

// ReadSample decodes image i, checks its size against the annotations'
// and letterboxes it.
func (d *coco) ReadSample(i int, dst []byte) error {
	if _, err := d.Shapes(i); err != nil {
		return err
	}
	im := d.list[i]
	if want := d.Schema().SampleBytes([][]int{{3, Size, Size}, {2}}); len(dst) != want {
		return fmt.Errorf("data set %s: sample %d: buffer of %d bytes, want %d", d.dir, i, len(dst), want)
	}
	path := filepath.Join(d.images, im.FileName)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("data set %s: sample %d: %w", d.dir, i, err)
	}
	defer f.Close()
	rgb, w, h, err := imaging.DecodeRGB(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("data set %s: sample %d: %w: %s: %w", d.dir, i, dataset.ErrCorrupt, im.FileName, err)
	}
	if w != im.Width || h != im.Height {
		return fmt.Errorf("data set %s: sample %d: %w: %s is %d×%d, its annotation says %d×%d (the scores scale boxes by the annotation's)",
			d.dir, i, dataset.ErrMismatch, im.FileName, w, h, im.Width, im.Height)
	}
	for k, v := range Letterbox(rgb, w, h) {
		binary.LittleEndian.PutUint32(dst[4*k:], math.Float32bits(v))
	}
	tail := dst[4*3*Size*Size:]
	binary.LittleEndian.PutUint32(tail, uint32(h))
	binary.LittleEndian.PutUint32(tail[4:], uint32(w))
	return nil
}

// Reader reads a COCO directory with its annotations (labelMap when it
// is a .json file, else DIR/annotations/instances_val2017.json or
// instances_val2017_safe.json) whose first image is there.
var Reader = dataset.Reader{
	Is: func(p string, o dataset.Options) bool {
		ann := annotationsOf(p, o.LabelMap)
		if !dataset.IsDir(p) || ann == "" {
			return false
		}
		list, err := readImages(ann)
		return err != nil || imagesDir(p, list[0].FileName) != ""
	},
	Open: func(p string, o dataset.Options) (dataset.Dataset, error) {
		return OpenCOCO(p, annotationsOf(p, o.LabelMap))
	},
}
