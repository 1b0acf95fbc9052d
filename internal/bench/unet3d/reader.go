package unet3d

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// KiTS19 as the 3D-UNet reference preprocesses it
// (vision/medical_imaging/3d-unet-kits19/preprocess.py): one pickle per
// case, CASE.pkl, holding [image, label] (numpy arrays; the image float32
// [1, D, H, W], the shape varying by case), and preprocessed_files.pkl, a
// dict whose "file_list" names the cases in sample order (kits_QSL.py
// reads them so). Each sample is one tensor, "image".
const (
	kitsFileList = "preprocessed_files.pkl"
	// KiTSTensor is the name of the one tensor of a KiTS19 sample.
	KiTSTensor = "image"
)

// IsKiTS reports whether dir holds the reference's preprocessed KiTS19.
func IsKiTS(dir string) bool { return dataset.IsFile(filepath.Join(dir, kitsFileList)) }

// kits is an open KiTS19 directory.
type kits struct {
	dir    string
	cases  []string
	shapes [][][]int
	// data is each case's image: a span of its pickle, or its bytes (a
	// small one, read with the pickle).
	data  []any
	dtype dataset.DType
}

var _ dataset.Dataset = (*kits)(nil)

// OpenKiTS opens the reference's preprocessed KiTS19 directory. It reads
// the file list and every case's pickle up to its image's data, so that a
// missing, malformed or mis-typed case is an error now, naming it and its
// sample index.
func OpenKiTS(dir string) (dataset.Dataset, error) {
	cases, err := readKiTSFileList(filepath.Join(dir, kitsFileList))
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	k := &kits{dir: dir, cases: cases}
	for i, c := range cases {
		shape, dt, data, err := readKiTSCase(filepath.Join(dir, c+".pkl"))
		if err != nil {
			return nil, fmt.Errorf("data set %s: sample %d (%s): %w", dir, i, c, err)
		}
		if i == 0 {
			k.dtype = dt
		} else if dt != k.dtype {
			return nil, fmt.Errorf("data set %s: sample %d (%s): %w: image is %s, case %s's %s", dir, i, c, dataset.ErrMismatch, dt, cases[0], k.dtype)
		}
		k.shapes = append(k.shapes, [][]int{shape})
		k.data = append(k.data, data)
	}
	return k, nil
}

// readKiTSFileList reads preprocessed_files.pkl's "file_list".
func readKiTSFileList(path string) ([]string, error) {
	v, err := unpickleFile(path)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*pickle.Dict)
	var list any
	if ok {
		list, ok = d.Get("file_list")
	}
	l, ok2 := list.(*[]any)
	if !ok || !ok2 {
		return nil, fmt.Errorf("%s: %w: want a dict with a \"file_list\" list of case names", filepath.Base(path), dataset.ErrCorrupt)
	}
	var cases []string
	for _, x := range *l {
		s, ok := x.(string)
		if !ok || s == "" || strings.ContainsAny(s, `/\`) {
			return nil, fmt.Errorf("%s: %w: file_list entry %v is not a case name", filepath.Base(path), dataset.ErrCorrupt, x)
		}
		cases = append(cases, s)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: %w: an empty file_list", filepath.Base(path), dataset.ErrCorrupt)
	}
	return cases, nil
}

// readKiTSCase reads a case pickle's image: its shape, dtype and where
// its bytes are.
func readKiTSCase(path string) ([]int, dataset.DType, any, error) {
	v, err := unpickleFile(path)
	if err != nil {
		return nil, 0, nil, err
	}
	var first any
	switch l := v.(type) {
	case *[]any:
		if len(*l) > 0 {
			first = (*l)[0]
		}
	case pickle.Tuple:
		if len(l) > 0 {
			first = l[0]
		}
	}
	a, ok := first.(*pickle.Array)
	if !ok {
		return nil, 0, nil, fmt.Errorf("%s: %w: want [image, label] numpy arrays", filepath.Base(path), dataset.ErrCorrupt)
	}
	dt, err := checkArray(a)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: image: %w", filepath.Base(path), err)
	}
	if len(a.Shape) != 4 || a.Shape[0] != 1 {
		return nil, 0, nil, fmt.Errorf("%s: %w: image of shape %v, want [1, D, H, W]", filepath.Base(path), dataset.ErrMismatch, a.Shape)
	}
	return a.Shape, dt, a.Data, nil
}

// checkArray checks that a numpy array is little-endian, C-ordered, of a
// dtype the data sets hold, and that its data (bytes, or a span of its
// file) is as long as its shape says.
func checkArray(a *pickle.Array) (dataset.DType, error) {
	dt, err := dataset.ParseDType(a.DType.Descr())
	if err != nil {
		return 0, fmt.Errorf("%w: %w", dataset.ErrMismatch, err)
	}
	if a.Fortran && len(a.Shape) > 1 {
		return 0, fmt.Errorf("%w: a Fortran-ordered array", dataset.ErrMismatch)
	}
	n := int64(dt.Size())
	for _, d := range a.Shape {
		n *= int64(d)
	}
	var have int64
	switch d := a.Data.(type) {
	case pickle.Span:
		have = d.Length
	case []byte:
		have = int64(len(d))
	default:
		return 0, fmt.Errorf("%w: array data of %T", dataset.ErrCorrupt, a.Data)
	}
	if have != n {
		return 0, fmt.Errorf("%w: %d data bytes for %s%v", dataset.ErrCorrupt, have, dt, a.Shape)
	}
	return dt, nil
}

func unpickleFile(path string) (any, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), dataset.ErrNotFound)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	v, err := pickle.Load(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", filepath.Base(path), dataset.ErrCorrupt, err)
	}
	return v, nil
}

func (k *kits) Name() string  { return k.dir }
func (k *kits) Len() int      { return len(k.cases) }
func (k *kits) Labels() []int { return nil }
func (k *kits) Close() error  { return nil }

// Truth is the preprocessed directory, whose nifti/ segmentations
// accuracy_kits.py reads.
func (k *kits) Truth() string { return k.dir }
func (k *kits) Form() string {
	return "KiTS19 preprocessed by the 3D-UNet reference (preprocess.py pickles)"
}
func (k *kits) Schema() dataset.Schema {
	return dataset.Schema{{Name: KiTSTensor, DType: k.dtype, Shape: []int{1, dataset.Varies, dataset.Varies, dataset.Varies}}}
}

func (k *kits) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(k.cases) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", k.dir, i, len(k.cases))
	}
	return k.shapes[i], nil
}

// ReadSample reads case i's image bytes from its pickle.
func (k *kits) ReadSample(i int, dst []byte) error {
	if _, err := k.Shapes(i); err != nil {
		return err
	}
	name := k.cases[i] + ".pkl"
	if err := readData(filepath.Join(k.dir, name), k.data[i], dst); err != nil {
		return fmt.Errorf("data set %s: sample %d (%s): %w", k.dir, i, name, err)
	}
	return nil
}

// readData reads an array's data into dst: bytes already read, or a span
// of the file at path.
func readData(path string, data any, dst []byte) error {
	switch d := data.(type) {
	case []byte:
		if len(d) != len(dst) {
			return fmt.Errorf("buffer of %d bytes for %d", len(dst), len(d))
		}
		copy(dst, d)
		return nil
	case pickle.Span:
		if int64(len(dst)) != d.Length {
			return fmt.Errorf("buffer of %d bytes for %d", len(dst), d.Length)
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.ReadAt(dst, d.Offset); err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: truncated", dataset.ErrCorrupt)
			}
			return err
		}
		return nil
	}
	return fmt.Errorf("%w: array data of %T", dataset.ErrCorrupt, data)
}

// Reader reads the reference's preprocessed KiTS19 directory.
var Reader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return IsKiTS(p) },
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return OpenKiTS(p) },
}

// Scorer is 3D-UNet's: accuracy_kits.py's mean DICE.
var Scorer = accuracy.Scorer{Name: "kits19", Script: "vision/medical_imaging/3d-unet-kits19/accuracy_kits.py",
	Needs: []string{accuracy.NeedTruth}, Score: scoreKiTS}

func scoreKiTS(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	if in.Truth == "" {
		return nil, errors.New("kits19: no preprocessed data directory given")
	}
	cases, err := ReadKiTSTruth(in.Truth)
	if err != nil {
		return nil, err
	}
	dtype := in.Dtype
	if dtype == "" {
		dtype = "uint8"
	}
	return KiTSDice(log, cases, dtype)
}
