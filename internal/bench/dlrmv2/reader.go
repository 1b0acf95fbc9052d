package dlrmv2

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The multi-hot Criteo day 23 as the DLRMv2 reference reads it
// (recommendation/dlrm_v2/pytorch/python/multihot_criteo.py): rows of
// user-item pairs in day_23_dense.npy (float32 [rows, 13]),
// day_23_sparse_multi_hot.npz (26 uncompressed arrays "0.npy".."25.npy",
// int32 [rows, multi-hot size]) and day_23_labels.npy, and the aggregation
// trace dlrm_trace_of_aggregated_samples.txt, whose line i ("start, end,
// count") makes sample i of rows [start, end). A sample's tensors are
// "dense", "sparse_0".."sparse_25" and "labels", each of its rows.
const (
	// CriteoTrace is the aggregation trace's file name.
	CriteoTrace = "dlrm_trace_of_aggregated_samples.txt"
	criteoDay   = "day_23"
)

// criteoSuffixes are the reference's data set names: multihot-criteo,
// multihot-criteo-sample, debug.
var criteoSuffixes = []string{"", "_sample", "_debug"}

// criteoFiles returns the day-23 files of dir (dense, sparse, labels), or
// false.
func criteoFiles(dir string) ([3]string, bool) {
	for _, s := range criteoSuffixes {
		f := [3]string{
			filepath.Join(dir, criteoDay+"_dense"+s+".npy"),
			filepath.Join(dir, criteoDay+"_sparse_multi_hot"+s+".npz"),
			filepath.Join(dir, criteoDay+"_labels"+s+".npy"),
		}
		if dataset.IsFile(f[0]) {
			return f, true
		}
	}
	return [3]string{}, false
}

// IsCriteo reports whether dir holds the reference's multi-hot day 23.
func IsCriteo(dir string) bool {
	_, ok := criteoFiles(dir)
	return ok
}

// rowArray is a 2-D array of rows in a file: where its data starts, its
// dtype and its row shape.
type rowArray struct {
	path  string
	name  string // for errors: the file, or "npz member" in the file
	off   int64
	dtype dataset.DType
	rows  int
	inner []int // the row's shape
}

func (a rowArray) rowBytes() int {
	n := a.dtype.Size()
	for _, d := range a.inner {
		n *= d
	}
	return n
}

// openRowArray reads the header of a .npy file of rows.
func openRowArray(path string) (rowArray, error) {
	h, err := dataset.ReadNPYFileHeader(path)
	if err != nil {
		return rowArray{}, err
	}
	if len(h.Spec.Shape) < 1 {
		return rowArray{}, fmt.Errorf("%s: %w: a scalar, want rows", filepath.Base(path), dataset.ErrMismatch)
	}
	a := rowArray{path: path, name: filepath.Base(path), off: h.DataOffset, dtype: h.Spec.DType, rows: h.Spec.Shape[0], inner: h.Spec.Shape[1:]}
	return a, checkRowsFit(a)
}

// checkRowsFit checks that the file holds every row.
func checkRowsFit(a rowArray) error {
	st, err := os.Stat(a.path)
	if err != nil {
		return err
	}
	if want := a.off + int64(a.rows)*int64(a.rowBytes()); st.Size() < want {
		return fmt.Errorf("%s: %w: truncated: %d bytes, its %d rows need %d", a.name, dataset.ErrCorrupt, st.Size(), a.rows, want)
	}
	return nil
}

// openNPZ reads the headers of the members name0..name{n-1}.npy of an
// uncompressed .npz, as the reference memory-maps them.
func openNPZ(path string, n int) ([]rowArray, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", filepath.Base(path), dataset.ErrCorrupt, err)
	}
	defer z.Close()
	byName := map[string]*zip.File{}
	for _, f := range z.File {
		byName[f.Name] = f
	}
	out := make([]rowArray, n)
	for k := range n {
		member := strconv.Itoa(k) + ".npy"
		f, ok := byName[member]
		name := filepath.Base(path) + " member " + member
		if !ok {
			return nil, fmt.Errorf("%s: %w", name, dataset.ErrNotFound)
		}
		if f.Method != zip.Store {
			return nil, fmt.Errorf("%s: %w: compressed (the reference memory-maps uncompressed members: np.savez, not savez_compressed)", name, dataset.ErrMismatch)
		}
		start, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", name, dataset.ErrCorrupt, err)
		}
		r, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", name, dataset.ErrCorrupt, err)
		}
		h, err := dataset.ReadNPYHeader(bufio.NewReader(r))
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(h.Spec.Shape) != 2 {
			return nil, fmt.Errorf("%s: %w: %s, want [rows, multi-hot size]", name, dataset.ErrMismatch, h.Spec)
		}
		out[k] = rowArray{path: path, name: name, off: start + h.DataOffset, dtype: h.Spec.DType, rows: h.Spec.Shape[0], inner: h.Spec.Shape[1:]}
		if err := checkRowsFit(out[k]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readTrace reads an aggregation trace: per sample its first row and row
// count.
func readTrace(path string) (starts, counts []int, err error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: %w", filepath.Base(path), dataset.ErrNotFound)
		}
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		p := strings.Split(t, ",")
		var v [3]int
		ok := len(p) == 3
		for i := 0; ok && i < 3; i++ {
			v[i], err = strconv.Atoi(strings.TrimSpace(p[i]))
			ok = err == nil && v[i] >= 0
		}
		if !ok || v[1]-v[0] != v[2] || v[2] == 0 {
			return nil, nil, fmt.Errorf("%s:%d: %w: %q: want \"start, end, count\" with end-start = count > 0", filepath.Base(path), line, dataset.ErrCorrupt, t)
		}
		starts, counts = append(starts, v[0]), append(counts, v[2])
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(starts) == 0 {
		return nil, nil, fmt.Errorf("%s: %w: no samples", filepath.Base(path), dataset.ErrCorrupt)
	}
	return starts, counts, nil
}

// criteo is an open multi-hot Criteo directory.
type criteo struct {
	dir            string
	arrays         []rowArray // dense, sparse_0.., labels
	schema         dataset.Schema
	starts, counts []int
	// files are the open files by path, read with ReadAt.
	files map[string]*os.File
}

var _ dataset.Dataset = (*criteo)(nil)

// CriteoSparseFeatures is the number of DLRMv2's sparse features.
const CriteoSparseFeatures = 26

// OpenCriteo opens the reference's multi-hot day 23 in dir with its
// aggregation trace (trace, else DIR/dlrm_trace_of_aggregated_samples.txt).
func OpenCriteo(dir, trace string) (dataset.Dataset, error) {
	d, err := openCriteo(dir, trace)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	return d, nil
}

func openCriteo(dir, trace string) (*criteo, error) {
	files, ok := criteoFiles(dir)
	if !ok {
		return nil, fmt.Errorf("%w: no %s_dense.npy", dataset.ErrNotFound, criteoDay)
	}
	if trace == "" {
		trace = filepath.Join(dir, CriteoTrace)
	}
	d := &criteo{dir: dir}
	var err error
	if d.starts, d.counts, err = readTrace(trace); err != nil {
		return nil, fmt.Errorf("%w (the reference's aggregation trace: recommendation/dlrm_v2/pytorch/README.md says where to get it; "+
			"put it in the data set directory or pass it with --label-map)", err)
	}
	dense, err := openRowArray(files[0])
	if err != nil {
		return nil, err
	}
	sparse, err := openNPZ(files[1], CriteoSparseFeatures)
	if err != nil {
		return nil, err
	}
	labels, err := openRowArray(files[2])
	if err != nil {
		return nil, err
	}
	d.arrays = append(append([]rowArray{dense}, sparse...), labels)
	names := []string{"dense"}
	for k := range CriteoSparseFeatures {
		names = append(names, "sparse_"+strconv.Itoa(k))
	}
	names = append(names, "labels")
	last, lastSample := 0, 0
	for i, s := range d.starts {
		if e := s + d.counts[i]; e > last {
			last, lastSample = e, i
		}
	}
	for i, a := range d.arrays {
		if a.rows < last {
			return nil, fmt.Errorf("%s: %w: %d rows; the trace's sample %d ends at row %d", a.name, dataset.ErrMismatch, a.rows, lastSample, last)
		}
		d.schema = append(d.schema, dataset.TensorSpec{Name: names[i], DType: a.dtype, Shape: append([]int{dataset.Varies}, a.inner...)})
	}
	d.files = map[string]*os.File{}
	for _, a := range d.arrays {
		if d.files[a.path] != nil {
			continue
		}
		f, err := os.Open(a.path)
		if err != nil {
			d.Close()
			return nil, err
		}
		d.files[a.path] = f
	}
	return d, nil
}

func (d *criteo) Name() string  { return d.dir }
func (d *criteo) Len() int      { return len(d.starts) }
func (d *criteo) Labels() []int { return nil }

// Close closes the files.
func (d *criteo) Close() error {
	var errs []error
	for _, f := range d.files {
		errs = append(errs, f.Close())
	}
	d.files = nil
	return errors.Join(errs...)
}
func (d *criteo) Schema() dataset.Schema { return d.schema }
func (d *criteo) Form() string {
	return "multi-hot Criteo day 23 as the DLRMv2 reference reads it, samples by the aggregation trace"
}

func (d *criteo) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.starts) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.dir, i, len(d.starts))
	}
	out := make([][]int, len(d.arrays))
	for k, a := range d.arrays {
		out[k] = append([]int{d.counts[i]}, a.inner...)
	}
	return out, nil
}

// ReadSample reads sample i's rows of every array.
func (d *criteo) ReadSample(i int, dst []byte) error {
	shapes, err := d.Shapes(i)
	if err != nil {
		return err
	}
	if n := d.schema.SampleBytes(shapes); len(dst) != n {
		return fmt.Errorf("data set %s: buffer of %d bytes for the %d-byte sample %d", d.dir, len(dst), n, i)
	}
	off := 0
	for _, a := range d.arrays {
		n := d.counts[i] * a.rowBytes()
		if _, err := d.files[a.path].ReadAt(dst[off:off+n], a.off+int64(d.starts[i])*int64(a.rowBytes())); err != nil {
			return fmt.Errorf("data set %s: sample %d: %s: %w", d.dir, i, a.name, err)
		}
		off += n
	}
	return nil
}

// Reader reads the reference's multi-hot day 23 with its
// aggregation trace (the label map, else the directory's).
var Reader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return IsCriteo(p) },
	Open: func(p string, o dataset.Options) (dataset.Dataset, error) { return OpenCriteo(p, o.LabelMap) },
}

// Scorer is DLRMv2's: accuracy-dlrm.py's ROC AUC.
var Scorer = accuracy.Scorer{Name: "dlrm", Script: "recommendation/dlrm_v2/pytorch/tools/accuracy-dlrm.py", Score: scoreDLRM}

func scoreDLRM(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	if in.Dtype != "" && in.Dtype != "float32" {
		return nil, fmt.Errorf("dlrm: response dtype %q: only float32 (the reference's) is read", in.Dtype)
	}
	if in.Truth == "" {
		return AUC(log, nil)
	}
	day, err := accuracy.OpenInput("dlrm day-23 file", in.Truth)
	if err != nil {
		return nil, err
	}
	defer day.Close()
	trace, err := accuracy.OpenInput("dlrm aggregation trace", in.Trace)
	if err != nil {
		return nil, err
	}
	defer trace.Close()
	labels, err := ReadDLRMLabels(day, trace)
	if err != nil {
		return nil, err
	}
	return AUC(log, labels)
}
