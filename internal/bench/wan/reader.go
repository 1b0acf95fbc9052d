package wan

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/torchpt"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The reference's data directory (text_to_video/wan-2.2-t2v-a14b/data):
// the prompts run_mlperf.py's --dataset reads and the latent its
// --fixed-latent loads.
const (
	PromptsFile = "vbench_prompts.txt"
	LatentFile  = "fixed_latent.pt"
	// PromptTensor is a sample's prompt, uint8 [length]: its UTF-8
	// bytes, as the reference's load_prompts strips them.
	PromptTensor = "prompt"
	// LatentTensor is the fixed latent's one batch element, float32
	// [16, T, h, w]: the same for every sample, as the reference passes
	// the latent to every generation.
	LatentTensor = "latents"
)

// The reference's generation (inference_config.yaml) and the Wan VAE's
// compression, which turn the latent's shape into the video's.
const (
	// FPS is inference_config.yaml's fps, which export_to_video encodes at.
	FPS = 16
	// LatentChannels is the VAE's z_dim.
	LatentChannels = 16
	// TemporalScale and SpatialScale are the VAE's scale factors: a
	// latent of T frames of h×w decodes to 4(T-1)+1 frames of 8h×8w.
	TemporalScale = 4
	SpatialScale  = 8
)

// Video is the geometry of the generated videos.
type Video struct {
	Frames, Height, Width int
}

// VideoOf is the geometry a latent of shape [1, 16, T, h, w] decodes to.
//
// # Errors
//
// Refuses another shape.
func VideoOf(latent []int) (Video, error) {
	if len(latent) != 5 || latent[0] != 1 || latent[1] != LatentChannels || latent[2] < 1 || latent[3] < 1 || latent[4] < 1 {
		return Video{}, fmt.Errorf("latent of shape %v, want [1, %d, frames, height, width]", latent, LatentChannels)
	}
	return Video{Frames: TemporalScale*(latent[2]-1) + 1, Height: SpatialScale * latent[3], Width: SpatialScale * latent[4]}, nil
}

// Pixels is a video's count of RGB pixels.
func (v Video) Pixels() int { return v.Frames * v.Height * v.Width }

func (v Video) String() string {
	return fmt.Sprintf("%d frames of %d×%d", v.Frames, v.Width, v.Height)
}

// ReadPrompts reads a prompts file as run_mlperf.py's load_prompts does:
// each line stripped of surrounding white space, the empty ones dropped.
//
// # Errors
//
// Names the file and line of a prompt that is not UTF-8 (Python's open
// would fail there) or that cannot name a video file (a "/" or a NUL),
// and refuses a file without prompts.
func ReadPrompts(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if !utf8.Valid(sc.Bytes()) {
			return nil, fmt.Errorf("%s: line %d: %w: not UTF-8", name, line, dataset.ErrCorrupt)
		}
		p := strings.TrimSpace(sc.Text())
		if p == "" {
			continue
		}
		if strings.ContainsAny(p, "/\x00") {
			return nil, fmt.Errorf("%s: line %d: %w: prompt %q cannot name its video file (<prompt>-0.mp4)", name, line, dataset.ErrCorrupt, p)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, dataset.ErrCorrupt, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: no prompts", name, dataset.ErrCorrupt)
	}
	return out, nil
}

// ReadLatent reads the fixed latent (a torch.save tensor) and the video
// geometry it decodes to.
//
// # Errors
//
// Names the file of an archive torchpt cannot read or a latent of
// another shape.
func ReadLatent(path string) (*torchpt.Tensor, Video, error) {
	t, err := torchpt.ReadFile(path)
	if errors.Is(err, torchpt.ErrFormat) {
		return nil, Video{}, fmt.Errorf("%s: %w: %w", filepath.Base(path), dataset.ErrCorrupt, err)
	}
	if err != nil {
		return nil, Video{}, err
	}
	v, err := VideoOf(t.Shape)
	if err != nil {
		return nil, Video{}, fmt.Errorf("%s: %w: %w", filepath.Base(path), dataset.ErrMismatch, err)
	}
	return t, v, nil
}

// Prompts is the reference's data directory, open: every sample is a
// prompt with the fixed latent.
type Prompts struct {
	dir, prompts string
	list         []string
	latentShape  []int
	latent       []byte
	// Video is the geometry of the videos generated from the latent.
	Video Video
}

var _ dataset.Dataset = (*Prompts)(nil)

// OpenData opens the reference's data directory (vbench_prompts.txt and
// fixed_latent.pt), or its prompts file with fixed_latent.pt beside it.
//
// # Errors
//
// Names the file and line of a malformed prompts file and the file of a
// latent ReadLatent refuses.
func OpenData(path string) (*Prompts, error) {
	dir, prompts := path, filepath.Join(path, PromptsFile)
	if dataset.IsFile(path) {
		dir, prompts = filepath.Dir(path), path
	}
	list, err := ReadPrompts(prompts)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	t, v, err := ReadLatent(filepath.Join(dir, LatentFile))
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	d := &Prompts{dir: dir, prompts: prompts, list: list, latentShape: t.Shape, Video: v, latent: make([]byte, 0, 4*len(t.Values))}
	for _, x := range t.Values {
		d.latent = binary.LittleEndian.AppendUint32(d.latent, math.Float32bits(x))
	}
	return d, nil
}

// Prompt is sample i's prompt.
func (d *Prompts) Prompt(i int) string { return d.list[i] }

func (d *Prompts) Name() string  { return d.prompts }
func (d *Prompts) Len() int      { return len(d.list) }
func (d *Prompts) Close() error  { return nil }
func (d *Prompts) Labels() []int { return nil }
func (d *Prompts) Truth() string { return d.prompts }
func (d *Prompts) Form() string {
	return fmt.Sprintf("wan-2.2 prompts (%s) with the fixed latent %v (%s): videos of %s", PromptsFile, d.latentShape, LatentFile, d.Video)
}

func (d *Prompts) Schema() dataset.Schema {
	return dataset.Schema{
		{Name: PromptTensor, DType: dataset.Uint8, Shape: []int{dataset.Varies}},
		{Name: LatentTensor, DType: dataset.Float32, Shape: d.latentShape[1:]},
	}
}

func (d *Prompts) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.list) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.prompts, i, len(d.list))
	}
	return [][]int{{len(d.list[i])}, d.latentShape[1:]}, nil
}

func (d *Prompts) ReadSample(i int, dst []byte) error {
	shapes, err := d.Shapes(i)
	if err != nil {
		return err
	}
	if want := d.Schema().SampleBytes(shapes); len(dst) != want {
		return fmt.Errorf("data set %s: sample %d: buffer of %d bytes, want %d", d.prompts, i, len(dst), want)
	}
	n := copy(dst, d.list[i])
	copy(dst[n:], d.latent)
	return nil
}

// Reader reads the reference's data directory, or its prompts file,
// with fixed_latent.pt.
var Reader = dataset.Reader{
	Is: func(p string, _ dataset.Options) bool {
		dir := p
		if dataset.IsFile(p) {
			if filepath.Base(p) != PromptsFile {
				return false
			}
			dir = filepath.Dir(p)
		} else if !dataset.IsFile(filepath.Join(p, PromptsFile)) {
			return false
		}
		return dataset.IsFile(filepath.Join(dir, LatentFile))
	},
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return OpenData(p) },
}
