package unet3d

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the predicted segmentation, one value per voxel of the case's shape in C order, class 0 (background), 1 (kidney) or 2 (tumor), uint8 by default"

// DiceResult is the score of a 3D-UNet (KiTS19) accuracy log, as
// accuracy_kits.py computes it: per case the DICE of kidney (class 1) and
// tumor (class 2), their mean the case's composite, each averaged over
// the cases.
type DiceResult struct {
	Mean, Kidney, Tumor float64
	Cases               int
}

// Text is accuracy_kits.py's line:
// "Accuracy: mean = 0.86170, kidney = 0.9347, tumor = 0.7887".
func (r DiceResult) Text() string {
	return fmt.Sprintf("Accuracy: mean = %.5f, kidney = %.4f, tumor = %.4f", r.Mean, r.Kidney, r.Tumor)
}

// Value implements accuracy.Score.
func (r DiceResult) Value(m benchmarks.Metric) (float64, bool) { return r.Mean, m == benchmarks.DICE }

// KiTSCase is one case's ground truth: its name (case_00000) and the
// segmentation the preprocessing wrote.
type KiTSCase struct {
	Name  string
	Truth Volume
}

// ReadKiTSTruth reads the ground truth of a preprocessed KiTS19 directory
// (the reference preprocess.py's output): DIR/nifti/CASE/segmentation.nii.gz
// for every case, in name order, which is the reference's sample order
// (its file list is the sorted inference_cases.json).
//
// # Errors
//
// A directory without cases, or a segmentation that does not read.
func ReadKiTSTruth(dir string) ([]KiTSCase, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "nifti"))
	if err != nil {
		return nil, fmt.Errorf("kits19 ground truth: %w", err)
	}
	var cases []KiTSCase
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "case_") {
			continue
		}
		path := filepath.Join(dir, "nifti", e.Name(), "segmentation.nii.gz")
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("kits19 ground truth: %w", err)
		}
		v, err := ReadNIfTI(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("kits19 ground truth %s: %w", path, err)
		}
		cases = append(cases, KiTSCase{Name: e.Name(), Truth: v})
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("kits19 ground truth: no case_* directory under %s", filepath.Join(dir, "nifti"))
	}
	slices.SortFunc(cases, func(a, b KiTSCase) int { return strings.Compare(a.Name, b.Name) })
	return cases, nil
}

// KiTSDtypes lists the response types accuracy_kits.py's --output_dtype
// takes that KiTSDice reads (all but float16).
func KiTSDtypes() []string {
	return []string{"uint8", "int8", "int16", "int32", "int64", "float32", "float64"}
}

// KiTSDice scores a 3D-UNet accuracy log as accuracy_kits.py does: the
// response of qsl_idx i is case i's predicted segmentation, the case's
// shape in C order, one dtype element per voxel (uint8 by default, as
// the reference). Every case must be answered exactly once, as the
// script asserts.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log, an unknown dtype, a qsl_idx
// without a case, a response of the wrong size, a class outside 0–2
// (the script's one-hot encoding fails on it), a case answered twice or
// not at all.
func KiTSDice(r io.Reader, cases []KiTSCase, dtype string) (DiceResult, error) {
	size, read, err := kitsType(dtype)
	if err != nil {
		return DiceResult{}, fmt.Errorf("%w: %w", accuracy.ErrLog, err)
	}
	kidney := make([]float64, len(cases))
	tumor := make([]float64, len(cases))
	seen := make([]bool, len(cases))
	err = accuracy.ReadLog(r, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(cases)) {
			return fmt.Errorf("%w: qsl_idx %d has no case (the data set has %d)", accuracy.ErrLog, e.QSLIdx, len(cases))
		}
		c := cases[e.QSLIdx]
		if seen[e.QSLIdx] {
			return fmt.Errorf("%w: qsl_idx %d (%s) answered twice", accuracy.ErrLog, e.QSLIdx, c.Name)
		}
		seen[e.QSLIdx] = true
		if n := len(c.Truth.Labels); len(e.Data) != n*size {
			return fmt.Errorf("%w: qsl_idx %d (%s): %d bytes, want %v voxels of %s", accuracy.ErrLog, e.QSLIdx, c.Name, len(e.Data), c.Truth.Shape, dtype)
		}
		var inter, tsum, psum [3]float64
		for i, t := range c.Truth.Labels {
			p := uint8(read(e.Data[i*size:]))
			if p > 2 || t > 2 {
				return fmt.Errorf("%w: qsl_idx %d (%s): voxel %d: class %d/%d outside 0-2", accuracy.ErrLog, e.QSLIdx, c.Name, i, p, t)
			}
			tsum[t]++
			psum[p]++
			if p == t {
				inter[p]++
			}
		}
		dice := func(k int) float64 { return (2*inter[k] + 1e-6) / (tsum[k] + psum[k] + 1e-6) }
		kidney[e.QSLIdx], tumor[e.QSLIdx] = dice(1), dice(2)
		return nil
	})
	if err != nil {
		return DiceResult{}, err
	}
	if i := slices.Index(seen, false); i >= 0 {
		return DiceResult{}, fmt.Errorf("%w: case %s (qsl_idx %d) has no response; an accuracy run answers all %d", accuracy.ErrLog, cases[i].Name, i, len(cases))
	}
	res := DiceResult{Cases: len(cases)}
	for i := range cases {
		res.Kidney += kidney[i]
		res.Tumor += tumor[i]
		res.Mean += (kidney[i] + tumor[i]) / 2
	}
	n := float64(len(cases))
	res.Kidney, res.Tumor, res.Mean = res.Kidney/n, res.Tumor/n, res.Mean/n
	return res, nil
}

// kitsType returns a response element's size and reader; the value is
// converted to uint8 as nibabel's round trip and astype(np.uint8) do.
func kitsType(dtype string) (int, func([]byte) int64, error) {
	switch dtype {
	case "uint8":
		return 1, func(b []byte) int64 { return int64(b[0]) }, nil
	case "int8":
		return 1, func(b []byte) int64 { return int64(int8(b[0])) }, nil
	case "int16":
		return 2, func(b []byte) int64 { return int64(int16(binary.LittleEndian.Uint16(b))) }, nil
	case "int32":
		return 4, func(b []byte) int64 { return int64(int32(binary.LittleEndian.Uint32(b))) }, nil
	case "int64":
		return 8, func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }, nil
	case "float32":
		return 4, func(b []byte) int64 { return int64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }, nil
	case "float64":
		return 8, func(b []byte) int64 { return int64(math.Float64frombits(binary.LittleEndian.Uint64(b))) }, nil
	}
	return 0, nil, fmt.Errorf("response dtype %q: want one of %s", dtype, strings.Join(KiTSDtypes(), ", "))
}
