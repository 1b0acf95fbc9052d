package sdxl

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The quality metrics of stable-diffusion-xl, as the submission checker
// names them.
const (
	MetricFID  benchmarks.Metric = "FID_SCORE"
	MetricCLIP benchmarks.Metric = "CLIP_SCORE"
)

// The files of a features directory (Inputs.Features, accuracy.features):
// what the networks give, which the scorer computes the metrics from.
const (
	// StatisticsFile is the reference statistics, mu and sigma, as
	// np.savez_compressed writes them: the reference's tools/val2014.npz.
	StatisticsFile = "val2014.npz"
	// InceptionFile is float [N, 2048]: the pool_3 activations of
	// Inception-v3 (fid/inception.py, FID weights) of the N generated
	// images, one row an image.
	InceptionFile = "inception.npy"
	// CLIPImageFile and CLIPTextFile are float [N, D]: CLIP ViT-B/32's
	// (openai weights) encode_image of each generated image and
	// encode_text of its caption, rows in the same image order.
	CLIPImageFile = "clip_image.npy"
	CLIPTextFile  = "clip_text.npy"
)

// ErrNetworks is wrapped by the scorer's error when no features
// directory is given: the metrics need Inception-v3 and CLIP, which
// mlperf-host does not run; the official script does ([Command]).
var ErrNetworks = errors.New("FID and CLIP scores need the Inception-v3 and CLIP networks")

// Scorer scores a stable-diffusion-xl accuracy log: it checks every
// logged image and, from the networks' outputs in the features
// directory, computes accuracy_coco.py's FID and CLIP scores.
var Scorer = accuracy.Scorer{
	Name:   "sdxl",
	Script: "text_to_image/tools/accuracy_coco.py",
	Needs:  []string{accuracy.NeedFeatures},
	Score: func(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
		return ScoreLog(log, in.Features)
	},
}

// Result is the script's two scores.
type Result struct {
	FID, CLIP float64
	// Images counts the images scored: the log's distinct samples.
	Images int
}

// Text is the script's line: "Accuracy Results: {'FID_SCORE': '…',
// 'CLIP_SCORE': '…'}", each value as str of numpy's float64.
func (r *Result) Text() string {
	return fmt.Sprintf("Accuracy Results: {'FID_SCORE': '%s', 'CLIP_SCORE': '%s'}", py.Float(r.FID), py.Float(r.CLIP))
}

// Value implements accuracy.Score.
func (r *Result) Value(m benchmarks.Metric) (float64, bool) {
	switch m {
	case MetricFID:
		return r.FID, true
	case MetricCLIP:
		return r.CLIP, true
	}
	return 0, false
}

// ScoreLog reads the log's images as the script does (a qsl_idx seen
// before skipped; every response a square RGB image of one size, the
// script's 1024×1024) and computes the scores from the features
// directory dir, whose files have a row per image read.
//
// # Errors
//
// Names the entry of a response that is not an image and the file of
// features that are missing, malformed or of the wrong row count; wraps
// ErrNetworks when dir is "".
func ScoreLog(log io.Reader, dir string) (*Result, error) {
	n, err := countImages(log)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, fmt.Errorf("%w: %d images logged; run the official script on the log, or give the networks' outputs (--features DIR: %s, %s, %s, %s)",
			ErrNetworks, n, StatisticsFile, InceptionFile, CLIPImageFile, CLIPTextFile)
	}
	ref, err := ReadStatistics(filepath.Join(dir, StatisticsFile))
	if err != nil {
		return nil, err
	}
	inc, err := readRows(filepath.Join(dir, InceptionFile), n)
	if err != nil {
		return nil, err
	}
	gen, err := NewStatistics(inc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", InceptionFile, err)
	}
	fid, err := FID(ref, gen)
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", StatisticsFile, InceptionFile, err)
	}
	var emb [2][][]float32
	for i, name := range []string{CLIPImageFile, CLIPTextFile} {
		rows, err := readRows(filepath.Join(dir, name), n)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			f := make([]float32, len(r))
			for k, v := range r {
				f[k] = float32(v) // the .float() of the encoders' outputs
			}
			emb[i] = append(emb[i], f)
		}
	}
	clip, err := CLIPScore(emb[0], emb[1])
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", CLIPImageFile, CLIPTextFile, err)
	}
	return &Result{FID: fid, CLIP: clip, Images: n}, nil
}

// countImages counts the log's distinct images, each checked to be a
// square RGB image of the first one's size.
func countImages(log io.Reader) (int, error) {
	n := 0
	err := ReadImages(log, 0, 0, func(Image) error { n++; return nil })
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: no responses", accuracy.ErrLog)
	}
	return n, err
}

// ReadStatistics reads mu and sigma from a .npz file, as
// compute_statistics_of_path does the reference's val2014.npz.
//
// # Errors
//
// Names the file: not a zip, no mu.npy or sigma.npy, arrays that are not
// float or not D and D×D.
func ReadStatistics(path string) (Statistics, error) {
	name := filepath.Base(path)
	z, err := zip.OpenReader(path)
	if err != nil {
		return Statistics{}, fmt.Errorf("%s: %w: not a .npz archive: %w", name, dataset.ErrCorrupt, err)
	}
	defer z.Close()
	arrays := map[string][]float64{}
	shapes := map[string][]int{}
	for _, f := range z.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if key != "mu" && key != "sigma" {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return Statistics{}, fmt.Errorf("%s: %w: %s: %w", name, dataset.ErrCorrupt, f.Name, err)
		}
		arrays[key], shapes[key], err = readFloatNPY(bufio.NewReader(r))
		r.Close()
		if err != nil {
			return Statistics{}, fmt.Errorf("%s: %s: %w", name, f.Name, err)
		}
	}
	mu, sigma := shapes["mu"], shapes["sigma"]
	if len(mu) != 1 || len(sigma) != 2 || sigma[0] != mu[0] || sigma[1] != mu[0] {
		return Statistics{}, fmt.Errorf("%s: %w: mu of shape %v and sigma of shape %v, want [D] and [D, D]", name, dataset.ErrCorrupt, mu, sigma)
	}
	return Statistics{Mu: arrays["mu"], Sigma: arrays["sigma"]}, nil
}

// maxFeatures bounds the elements of one features file.
const maxFeatures = 1 << 28

// readFloatNPY reads a float .npy array (float16, float32 or float64)
// from r as float64.
func readFloatNPY(r io.Reader) ([]float64, []int, error) {
	h, err := dataset.ReadNPYHeader(r)
	if err != nil {
		return nil, nil, err
	}
	if h.Spec.DType != dataset.Float32 && h.Spec.DType != dataset.Float16 && h.Spec.DType != dataset.Float64 {
		return nil, nil, fmt.Errorf("%w: a %s array, want float", dataset.ErrMismatch, h.Spec.DType)
	}
	if h.Spec.Elements() > maxFeatures {
		return nil, nil, fmt.Errorf("%w: an array of shape %v", dataset.ErrCorrupt, h.Spec.Shape)
	}
	data := make([]byte, h.Spec.Bytes())
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, nil, fmt.Errorf("%w: %d bytes of data for %v: %w", dataset.ErrCorrupt, len(data), h.Spec, err)
	}
	return floats(h.Spec.DType, data), h.Spec.Shape, nil
}

// readRows reads a features file of n rows.
func readRows(path string, n int) ([][]float64, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, shape, err := readFloatNPY(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(shape) != 2 || shape[0] != n {
		return nil, fmt.Errorf("%s: %w: features of shape %v, want [%d, D]: a row per logged image", name, dataset.ErrMismatch, shape, n)
	}
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = v[i*shape[1] : (i+1)*shape[1]]
	}
	return rows, nil
}

// Command is the shell command that runs the official scorer on an
// accuracy log: accuracy_coco.py of the inference repository
// ($INFERENCE_REPO) with the log, the captions file (the data set's
// captions/captions.tsv, the rows of captions_source.tsv), the directory
// it writes the compliance images and their captions.txt into, and the
// JSON file it writes the scores into. Its printed "Accuracy Results"
// line is what accuracy.txt holds. It needs torch, open_clip, scipy and
// the networks' weights (text_to_image/README.md); add --device gpu to
// run them on a GPU. ids, where not "", is the file of the compliance
// image ids (--ids-path; without it, the script's sample_ids.txt).
func Command(log, captions, imagesDir, ids, output string) string {
	args := []string{"python3", `"$INFERENCE_REPO"/` + Scorer.Script,
		"--mlperf-accuracy-file", shellQuote(log), "--caption-path", shellQuote(captions),
		"--compliance-images-path", shellQuote(imagesDir)}
	if ids != "" {
		args = append(args, "--ids-path", shellQuote(ids))
	}
	return strings.Join(append(args, "--output-file", shellQuote(output)), " ")
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
