package retinanet

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// OpenImages as the RetinaNet reference preprocesses it
// (vision/classification_and_detection/python/openimages.py): one .npy
// per image, float32 [3, 800, 800] (NCHW; [800, 800, 3] NHWC), named
// after the image's file_name in the annotations plus ".npy", in the
// preprocessed directory; and annotations/openimages-mlperf.json (COCO
// format), whose "images" order is the sample order. Each sample is one
// tensor, "images" (the reference ONNX model's input).
const (
	// OpenImagesAnnotations is the annotation file under the OpenImages
	// directory.
	OpenImagesAnnotations = "annotations/openimages-mlperf.json"
	// OpenImagesTensor is the name of the one tensor of an image.
	OpenImagesTensor = "images"
)

// openImagesAnnotations returns the annotation file of a preprocessed
// OpenImages directory: labelMap when it is a .json file, else
// DIR/annotations/openimages-mlperf.json; "" when neither exists.
func openImagesAnnotations(dir, labelMap string) string {
	if filepath.Ext(labelMap) == ".json" {
		return labelMap
	}
	if p := filepath.Join(dir, OpenImagesAnnotations); dataset.IsFile(p) {
		return p
	}
	return ""
}

// openImages is an open preprocessed OpenImages directory.
type openImages struct {
	dir   string
	ann   string
	files []string
	spec  dataset.Spec
}

var _ dataset.Dataset = (*openImages)(nil)

// annotationImages reads the image file names of a COCO annotation file,
// in order.
func annotationImages(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ann struct {
		Images []struct {
			ID       json.RawMessage `json:"id"`
			FileName string          `json:"file_name"`
		} `json:"images"`
	}
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(&ann); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
	}
	if len(ann.Images) == 0 {
		return nil, fmt.Errorf("%s: %w: no images", path, dataset.ErrCorrupt)
	}
	names := make([]string, len(ann.Images))
	for i, im := range ann.Images {
		if !filepath.IsLocal(im.FileName) {
			return nil, fmt.Errorf("%s: %w: image %d has file_name %q", path, dataset.ErrCorrupt, i, im.FileName)
		}
		names[i] = im.FileName
	}
	return names, nil
}

// OpenOpenImages opens a preprocessed OpenImages directory with its
// annotation file. Every image the annotations list must have its .npy
// (DIR/FILE_NAME.npy, or DIR/BASENAME.npy): the official script maps a
// detection's image index onto the annotations' images, so a data set
// that skips one scores every later image against the wrong boxes.
func OpenOpenImages(dir, annotations string) (dataset.Dataset, error) {
	names, err := annotationImages(annotations)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	d := &openImages{dir: dir, ann: annotations}
	for i, n := range names {
		p := filepath.Join(dir, n+".npy")
		if !dataset.IsFile(p) {
			p = filepath.Join(dir, filepath.Base(n)+".npy")
		}
		if !dataset.IsFile(p) {
			return nil, fmt.Errorf("data set %s: sample %d: %w: %s.npy (image %q of %s)", dir, i, dataset.ErrNotFound, n, n, filepath.Base(annotations))
		}
		d.files = append(d.files, p)
	}
	h, err := dataset.ReadNPYFileHeader(d.files[0])
	if err != nil {
		return nil, fmt.Errorf("data set %s: sample 0: %w", dir, err)
	}
	d.spec = h.Spec
	return d, nil
}

func (d *openImages) Name() string  { return d.dir }
func (d *openImages) Len() int      { return len(d.files) }
func (d *openImages) Labels() []int { return nil }
func (d *openImages) Close() error  { return nil }
func (d *openImages) Truth() string { return d.ann }
func (d *openImages) Form() string {
	return "OpenImages preprocessed by the RetinaNet reference (one .npy per image, in the annotations' order)"
}

func (d *openImages) Schema() dataset.Schema {
	return dataset.Schema{{Name: OpenImagesTensor, DType: d.spec.DType, Shape: d.spec.Shape}}
}

func (d *openImages) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.files) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.dir, i, len(d.files))
	}
	return [][]int{d.spec.Shape}, nil
}

// ReadSample reads image i, checking that its header is the first's.
func (d *openImages) ReadSample(i int, dst []byte) error {
	if _, err := d.Shapes(i); err != nil {
		return err
	}
	if err := readNPYInto(d.files[i], d.spec, dst); err != nil {
		return fmt.Errorf("data set %s: sample %d: %w", d.dir, i, err)
	}
	return nil
}

// readNPYInto reads a whole .npy file of the given spec into dst.
func readNPYInto(path string, spec dataset.Spec, dst []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	h, err := dataset.ReadNPYHeader(br)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if !h.Spec.Equal(spec) {
		return fmt.Errorf("%w: %s holds %s, the data set's first sample is %s", dataset.ErrMismatch, filepath.Base(path), h.Spec, spec)
	}
	if len(dst) != spec.Bytes() {
		return fmt.Errorf("buffer of %d bytes for %s", len(dst), spec)
	}
	if _, err := io.ReadFull(br, dst); err != nil {
		return fmt.Errorf("%w: %s: data: %w", dataset.ErrCorrupt, filepath.Base(path), err)
	}
	if n, _ := br.Read(make([]byte, 1)); n != 0 {
		return fmt.Errorf("%w: %s: bytes after the array", dataset.ErrCorrupt, filepath.Base(path))
	}
	return nil
}

// Reader reads the preprocessed OpenImages of a directory
// with its annotations (labelMap, else DIR/annotations/openimages-mlperf.json).
// A directory is taken for it whenever the label map is a .json file.
var Reader = dataset.Reader{
	Is: func(p string, o dataset.Options) bool {
		return dataset.IsDir(p) && openImagesAnnotations(p, o.LabelMap) != "" && !dataset.IsStacked(p) && !dataset.IsSampleDirs(p)
	},
	Open: func(p string, o dataset.Options) (dataset.Dataset, error) {
		return OpenOpenImages(p, openImagesAnnotations(p, o.LabelMap))
	},
	Last: true,
}

// Scorer is RetinaNet's: accuracy-openimages.py's mAP.
var Scorer = accuracy.Scorer{Name: "openimages", Script: "vision/classification_and_detection/tools/accuracy-openimages.py",
	Needs: []string{accuracy.NeedTruth}, Score: scoreOpenImages}

func scoreOpenImages(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	path := in.Truth
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "annotations", "openimages-mlperf.json")
	}
	f, err := accuracy.OpenInput("openimages annotations", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ann, err := ReadAnnotations(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return OpenImagesMAP(log, ann, in.InvMap)
}
