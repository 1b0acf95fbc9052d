package sdxl

import (
	"bufio"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the generated image as uint8 [height, width, 3] (RGB, row-major; 1024×1024×3 bytes)"

// ImageSize is the height and width of the images of the published data
// set, which accuracy_coco.py reshapes every response to.
const ImageSize = 1024

// ComplianceIDs are tools/sample_ids.txt's caption indices: the ten
// images accuracy_coco.py writes with --compliance-images-path by
// default.
var ComplianceIDs = []int{4475, 3627, 1046, 4937, 3867, 1671, 3789, 1206, 4111, 3093}

// ImagesDir is the accuracy directory's folder of compliance images,
// the submission checker's REQUIRED_ACC_BENCHMARK key.
const ImagesDir = "images"

// ComplianceIDsOf returns the compliance image ids of a round's
// benchmark: the ten its submission checker requires in the accuracy
// directory (b.AccuracyExtraFiles[ImagesDir], which accuracy_coco.py
// writes with --ids-path), else (false) the script's default
// ComplianceIDs.
//
// # Errors
//
// Names a required file that is not an index.
func ComplianceIDsOf(b benchmarks.Benchmark) ([]int, bool, error) {
	names, ok := b.AccuracyExtraFiles[ImagesDir]
	if !ok {
		return slices.Clone(ComplianceIDs), false, nil
	}
	ids := make([]int, len(names))
	for i, n := range names {
		id, err := strconv.Atoi(n)
		if err != nil || id < 0 {
			return nil, false, fmt.Errorf("%s's required image %q is not a caption index", b.Name, n)
		}
		ids[i] = id
	}
	return ids, true, nil
}

// IDsText is an ids file as the script's --ids-path reads it: an index a
// line.
func IDsText(ids []int) string {
	var b []byte
	for _, id := range ids {
		b = fmt.Appendf(b, "%d\n", id)
	}
	return string(b)
}

// Image is one logged response read as the script reads it: its
// qsl_idx and its pixels.
type Image struct {
	Index int
	RGB   *image.NRGBA
}

// ParseImage reads a response of an height×width image as the script's
// np.frombuffer(...).reshape(height, width, 3) does.
//
// # Errors
//
// Wraps accuracy.ErrLog for data of another length.
func ParseImage(data []byte, height, width int) (*image.NRGBA, error) {
	if len(data) != 3*height*width {
		return nil, fmt.Errorf("%w: %d bytes, want a %dx%d RGB image (%d)", accuracy.ErrLog, len(data), width, height, 3*height*width)
	}
	m := image.NewNRGBA(image.Rect(0, 0, width, height))
	for p := range height * width {
		copy(m.Pix[4*p:4*p+3], data[3*p:3*p+3])
		m.Pix[4*p+3] = 0xff
	}
	return m, nil
}

// ReadImages reads the accuracy log's images as the script does: in the
// log's order, a qsl_idx seen before skipped; fn gets each. A height and
// width of 0 take every image to be square, of the first one's size (the
// script's is 1024).
//
// # Errors
//
// Names the entry of a response that is not a height×width image.
func ReadImages(log io.Reader, height, width int, fn func(Image) error) error {
	seen := map[uint64]bool{}
	return accuracy.ReadLog(log, func(e accuracy.Entry) error {
		if seen[e.QSLIdx] {
			return nil
		}
		seen[e.QSLIdx] = true
		if height == 0 && width == 0 {
			height = int(math.Sqrt(float64(len(e.Data) / 3)))
			width = height
		}
		m, err := ParseImage(e.Data, height, width)
		if err != nil {
			return fmt.Errorf("entry seq_id %d (qsl_idx %d): %w", e.SeqID, e.QSLIdx, err)
		}
		return fn(Image{Index: int(e.QSLIdx), RGB: m})
	})
}

// Below returns the ids below n, a data set's size (all ten for the
// published 5000 captions).
func Below(ids []int, n int) []int {
	var out []int
	for _, id := range ids {
		if id < n {
			out = append(out, id)
		}
	}
	return out
}

// CaptionsText is the captions file of the compliance images,
// captions.txt: a line "IDX  CAPTION" per index of ids, as the script
// writes it with --compliance-images-path.
func CaptionsText(caps []Caption, ids []int) (string, error) {
	var b []byte
	for _, id := range ids {
		if id < 0 || id >= len(caps) {
			return "", fmt.Errorf("compliance image %d: the captions file has %d rows", id, len(caps))
		}
		b = fmt.Appendf(b, "%d  %s\n", id, caps[id].Caption)
	}
	return string(b), nil
}

// WriteImages writes into dir what accuracy_coco.py writes there with
// --compliance-images-path: captions.txt for ids (ComplianceIDs, the
// script's default sample_ids.txt) and IDX.png, the image of each of ids
// the log holds (PNG of 8-bit RGB, the pixels the script saves with
// PIL); with all, every logged image. A height and width of 0 are
// ReadImages'. It returns the images written.
//
// # Errors
//
// Names the entry of a response that is not a height×width image, and
// an id beyond the captions.
func WriteImages(dir string, log io.Reader, caps []Caption, ids []int, all bool, height, width int) (int, error) {
	text, err := CaptionsText(caps, ids)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "captions.txt"), []byte(text), 0o644); err != nil {
		return 0, err
	}
	n := 0
	err = ReadImages(log, height, width, func(m Image) error {
		if !all && !slices.Contains(ids, m.Index) {
			return nil
		}
		n++
		return writePNG(filepath.Join(dir, fmt.Sprintf("%d.png", m.Index)), m.RGB)
	})
	return n, err
}

func writePNG(path string, m image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = png.Encode(w, m)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
