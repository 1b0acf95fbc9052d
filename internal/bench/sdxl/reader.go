package sdxl

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/torchpt"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The data set as the reference's tools/coco.py writes it and coco.py
// reads it: a directory with
//
//   - captions/captions.tsv: a header and one row per sample, tab
//     separated (pandas' read_csv with sep="\t"): id, image_id, caption,
//     height, width, file_name, coco_url;
//   - latents/latents.pt (torch.save of the one float32 tensor
//     [1, 4, 128, 128] every sample starts from: the reference's default
//     --latent-framework torch), or latents/latents.npy (numpy).
//
// Sample i is row i: the accuracy script's df.iloc[qsl_idx].
const (
	CaptionsFile = "captions/captions.tsv"
	LatentsPT    = "latents/latents.pt"
	LatentsNPY   = "latents/latents.npy"
)

// The captions file's columns, in the order tools/coco.py writes them.
var columns = []string{"id", "image_id", "caption", "height", "width", "file_name", "coco_url"}

// The tensors of a sample.
const (
	// CaptionTensor is the caption's UTF-8 bytes, uint8 [length]: what
	// the reference's SUT tokenizes with both of SDXL's tokenizers.
	CaptionTensor = "caption"
	// LatentsTensor is the initial latents, float32 (the reference's
	// latent dtype after .to(float32)), [4, height/8, width/8]: the
	// file's tensor without its batch of one, the same for every sample
	// (the reference's SUT concatenates them into its batch).
	LatentsTensor = "latents"
)

// Reader opens the captions and latents directory.
var Reader = dataset.Reader{Is: func(path string, _ dataset.Options) bool { return isCOCO(path) }, Open: open}

func isCOCO(path string) bool {
	return dataset.IsFile(filepath.Join(path, CaptionsFile)) &&
		(dataset.IsFile(filepath.Join(path, LatentsPT)) || dataset.IsFile(filepath.Join(path, LatentsNPY)))
}

// Caption is one row of the captions file.
type Caption struct {
	ID, ImageID   int64
	Caption       string
	Height, Width int
	FileName, URL string
}

// COCO is the data set: the captions and the latents.
type COCO struct {
	dir      string
	Captions []Caption
	// Latents are the initial latents' elements; LatentsShape their
	// shape in the file, [1, 4, height/8, width/8]; LatentsFile the file
	// they came from.
	Latents      []float32
	LatentsShape []int
	LatentsFile  string
	latents      []byte
	schema       dataset.Schema
}

var (
	_ dataset.Dataset = (*COCO)(nil)
	_ dataset.Former  = (*COCO)(nil)
	_ dataset.Truther = (*COCO)(nil)
)

func open(path string, _ dataset.Options) (dataset.Dataset, error) { return OpenCOCO(path) }

// OpenCOCO reads the captions file and the latents of dir (latents.pt
// when both are there, as the reference's default).
//
// # Errors
//
// Names the file and the row of a captions file without the reference's
// columns, a row of the wrong field count, a field that is not a number
// or an empty caption; the file of latents that are not one float
// tensor (float32, float16 or bfloat16) of four dimensions.
func OpenCOCO(dir string) (*COCO, error) {
	caps, err := ReadCaptions(filepath.Join(dir, CaptionsFile))
	if err != nil {
		return nil, err
	}
	c := &COCO{dir: dir, Captions: caps}
	c.LatentsFile = filepath.Join(dir, LatentsPT)
	if dataset.IsFile(c.LatentsFile) {
		c.Latents, c.LatentsShape, err = ReadLatentsPT(c.LatentsFile)
	} else {
		c.LatentsFile = filepath.Join(dir, LatentsNPY)
		c.Latents, c.LatentsShape, err = ReadLatentsNPY(c.LatentsFile)
	}
	if err != nil {
		return nil, err
	}
	if len(c.LatentsShape) != 4 || c.LatentsShape[0] != 1 {
		return nil, fmt.Errorf("%s: %w: latents of shape %v, want [1, channels, height/8, width/8]", filepath.Base(c.LatentsFile), dataset.ErrCorrupt, c.LatentsShape)
	}
	c.latents = dataset.Float32Bytes(c.Latents)
	c.schema = dataset.Schema{
		{Name: CaptionTensor, DType: dataset.Uint8, Shape: []int{dataset.Varies}},
		{Name: LatentsTensor, DType: dataset.Float32, Shape: c.LatentsShape[1:]},
	}
	return c, nil
}

// ImageSize is the generated images' height and width: the latents'
// times the VAE's scale factor, 8 (1024 for the published latents).
func (c *COCO) ImageSize() (height, width int) {
	return 8 * c.LatentsShape[2], 8 * c.LatentsShape[3]
}

// Name implements dataset.Dataset.
func (c *COCO) Name() string { return c.dir }

// Len implements dataset.Dataset.
func (c *COCO) Len() int { return len(c.Captions) }

// Schema implements dataset.Dataset.
func (c *COCO) Schema() dataset.Schema { return c.schema }

// Shapes implements dataset.Dataset.
func (c *COCO) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(c.Captions) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", c.dir, i, len(c.Captions))
	}
	return [][]int{{len(c.Captions[i].Caption)}, c.LatentsShape[1:]}, nil
}

// ReadSample implements dataset.Dataset: the caption's bytes, then the
// latents.
func (c *COCO) ReadSample(i int, dst []byte) error {
	shapes, err := c.Shapes(i)
	if err != nil {
		return err
	}
	if n := c.schema.SampleBytes(shapes); len(dst) != n {
		return fmt.Errorf("data set %s: buffer of %d bytes for the %d-byte sample %d", c.dir, len(dst), n, i)
	}
	n := copy(dst, c.Captions[i].Caption)
	copy(dst[n:], c.latents)
	return nil
}

// Labels implements dataset.Dataset: none.
func (c *COCO) Labels() []int { return nil }

// Close implements dataset.Dataset.
func (c *COCO) Close() error { return nil }

// Form implements dataset.Former.
func (c *COCO) Form() string {
	h, w := c.ImageSize()
	return fmt.Sprintf("SDXL COCO 2014 captions (%d captions; latents %s %v: %dx%d images)", len(c.Captions), filepath.Base(c.LatentsFile), c.LatentsShape, w, h)
}

// Truth implements dataset.Truther: the captions file, which the
// accuracy script reads as --caption-path.
func (c *COCO) Truth() string { return filepath.Join(c.dir, CaptionsFile) }

// ReadCaptions reads a captions file as pandas' read_csv(sep="\t") does
// the reference's: a header naming the columns, quoted fields with
// doubled quotes inside.
//
// # Errors
//
// Names the file and the row (1 is the first after the header).
func ReadCaptions(path string) ([]Caption, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseCaptions(data, filepath.Base(path))
}

// ParseCaptions parses the captions file's bytes; name is the file's
// name in errors.
func ParseCaptions(data []byte, name string) ([]Caption, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = '\t'
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: header: %w", name, dataset.ErrCorrupt, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range columns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s: %w: header %q has no column %q (want %s)", name, dataset.ErrCorrupt, strings.Join(head, "\t"), c, strings.Join(columns, ", "))
		}
	}
	var out []Caption
	for row := 1; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w: row %d: %w", name, dataset.ErrCorrupt, row, err)
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%s: %w: row %d: %d fields, the header has %d", name, dataset.ErrCorrupt, row, len(rec), len(head))
		}
		c := Caption{Caption: rec[col["caption"]], FileName: rec[col["file_name"]], URL: rec[col["coco_url"]]}
		if c.Caption == "" {
			return nil, fmt.Errorf("%s: %w: row %d: empty caption", name, dataset.ErrCorrupt, row)
		}
		var ints [4]int64
		for i, f := range []string{"id", "image_id", "height", "width"} {
			if ints[i], err = strconv.ParseInt(strings.TrimSpace(rec[col[f]]), 10, 64); err != nil {
				return nil, fmt.Errorf("%s: %w: row %d: %s %q is not an integer", name, dataset.ErrCorrupt, row, f, rec[col[f]])
			}
		}
		c.ID, c.ImageID, c.Height, c.Width = ints[0], ints[1], int(ints[2]), int(ints[3])
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: no captions", name, dataset.ErrCorrupt)
	}
	return out, nil
}

// maxLatents bounds the latents' elements (a 16384² image's).
const maxLatents = 1 << 24

// ReadLatentsPT reads latents.pt, a torch.save archive of one tensor
// ([torchpt.ReadFile]). The elements are converted to float32 as the
// reference's .to(torch.float32) does (exactly, from float16 or
// bfloat16).
//
// # Errors
//
// Names the file, and the entry, of an archive torchpt cannot read (not
// a zip, no data.pkl, a pickle of other than one tensor, a big-endian
// archive, a view that is not its storage's contiguous elements), of a
// tensor that is not float32, float16 or bfloat16, or of too many
// latents.
func ReadLatentsPT(path string) ([]float32, []int, error) {
	name := filepath.Base(path)
	t, err := torchpt.ReadFile(path)
	if errors.Is(err, torchpt.ErrFormat) {
		return nil, nil, fmt.Errorf("%s: %w: %w", name, dataset.ErrCorrupt, err)
	}
	if err != nil {
		return nil, nil, err
	}
	if t.Values == nil {
		return nil, nil, fmt.Errorf("%s: %w: a %s tensor, want float, half or bfloat16", name, dataset.ErrCorrupt, t.Storage)
	}
	if len(t.Values) > maxLatents {
		return nil, nil, fmt.Errorf("%s: %w: %v latents", name, dataset.ErrCorrupt, t.Shape)
	}
	return t.Values, t.Shape, nil
}

// ReadLatentsNPY reads latents.npy (float32, float16 or float64; the
// reference's torch.Tensor(np.load(...)) makes float32 of it).
//
// # Errors
//
// Names the file of a malformed or short .npy file or one of another
// dtype.
func ReadLatentsNPY(path string) ([]float32, []int, error) {
	name := filepath.Base(path)
	h, err := dataset.ReadNPYFileHeader(path)
	if err != nil {
		return nil, nil, err
	}
	n := h.Spec.Elements()
	if n > maxLatents {
		return nil, nil, fmt.Errorf("%s: %w: %v latents", name, dataset.ErrCorrupt, h.Spec.Shape)
	}
	if h.Spec.DType != dataset.Float32 && h.Spec.DType != dataset.Float16 && h.Spec.DType != dataset.Float64 {
		return nil, nil, fmt.Errorf("%s: %w: %s latents, want float32", name, dataset.ErrMismatch, h.Spec.DType)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data := make([]byte, h.Spec.Bytes())
	if _, err := f.ReadAt(data, h.DataOffset); err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %d bytes of data for %v: %w", name, dataset.ErrCorrupt, len(data), h.Spec, err)
	}
	v := floats(h.Spec.DType, data)
	out := make([]float32, n)
	for i, x := range v {
		out[i] = float32(x)
	}
	return out, h.Spec.Shape, nil
}

// floats reads little-endian float16, float32 or float64 data.
func floats(t dataset.DType, data []byte) []float64 {
	out := make([]float64, len(data)/t.Size())
	for i := range out {
		switch t {
		case dataset.Float16:
			out[i] = float64(torchpt.Half(binary.LittleEndian.Uint16(data[2*i:])))
		case dataset.Float32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
		default:
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
	}
	return out
}
