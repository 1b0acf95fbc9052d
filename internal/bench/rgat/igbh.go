package rgat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/torchpt"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// IGBH (the Illinois Graph Benchmark's heterogeneous graph) as the
// reference reads it: DIR/SIZE/processed/ holds, per node type,
// TYPE/node_feat.npy (float32 [nodes, 1024]), paper/node_label_2K.npy
// (the 2983-class labels, one per paper), per relation
// SRC__REL__DST/edge_index.npy (int64 [edges, 2]: source, destination)
// and split_seeds.py's val_idx.pt (the validation papers, torch int64).
// The large and full sizes' paper and author features and paper labels
// are raw float32 files that the reference memory-maps at the sizes'
// node counts; the other files are .npy files.
const (
	Processed = "processed"
	ValIdx    = "val_idx.pt"
	Labels    = "node_label_2K.npy"
	NodeFeat  = "node_feat.npy"
	EdgeIndex = "edge_index.npy"
	// FeatureDim is IGBH's node feature width.
	FeatureDim = 1024
	// Classes is the number of classes of node_label_2K.npy, the
	// reference model's output width.
	Classes = 2983
)

// NodeTypes are IGBH's node types, in the order node_type numbers them.
var NodeTypes = []string{"paper", "author", "institute", "fos", "journal", "conference"}

// Relation is one edge type of the graph the reference samples: Src's
// nodes point at Dst's. File is the edge_index.npy directory it comes
// from; Reverse: the file's columns are swapped (the rev_ relations
// augment_edges adds).
type Relation struct {
	Name     string
	Src, Dst int
	File     string
	Reverse  bool
}

// Relations are the eleven relations of the reference's graph, in
// augment_edges' order: the six files (paper__cites__paper symmetrized,
// its self-loops replaced by one per paper, as augment_edges does), then
// the reverse of each but cites.
var Relations = []Relation{
	{Name: "cites", Src: 0, Dst: 0, File: "paper__cites__paper"},
	{Name: "written_by", Src: 0, Dst: 1, File: "paper__written_by__author"},
	{Name: "affiliated_to", Src: 1, Dst: 2, File: "author__affiliated_to__institute"},
	{Name: "topic", Src: 0, Dst: 3, File: "paper__topic__fos"},
	{Name: "published", Src: 0, Dst: 4, File: "paper__published__journal"},
	{Name: "venue", Src: 0, Dst: 5, File: "paper__venue__conference"},
	{Name: "rev_written_by", Src: 1, Dst: 0, File: "paper__written_by__author", Reverse: true},
	{Name: "rev_affiliated_to", Src: 2, Dst: 1, File: "author__affiliated_to__institute", Reverse: true},
	{Name: "rev_topic", Src: 3, Dst: 0, File: "paper__topic__fos", Reverse: true},
	{Name: "rev_published", Src: 4, Dst: 0, File: "paper__published__journal", Reverse: true},
	{Name: "rev_venue", Src: 5, Dst: 0, File: "paper__venue__conference", Reverse: true},
}

// rawNodes are the node counts at which the reference memory-maps the
// raw files of the large and full sizes: paper, author.
var rawNodes = map[string][2]int64{"large": {100000000, 116959896}, "full": {269346174, 277220883}}

// array is a numpy array on disk: a .npy file's data, or a raw file.
type array struct {
	path  string
	dtype dataset.DType
	shape []int64
	off   int64
	// f, once open (keep), serves every read.
	f *os.File
}

// keep opens the file for the reads to come; close closes it.
func (a *array) keep() error {
	f, err := os.Open(a.path)
	a.f = f
	return err
}

func (a *array) close() error {
	if a.f == nil {
		return nil
	}
	return a.f.Close()
}

func (a *array) rows() int64 { return a.shape[0] }

// cols is the elements of one row.
func (a *array) cols() int64 {
	n := int64(1)
	for _, d := range a.shape[1:] {
		n *= d
	}
	return n
}

// openArray reads the header of a .npy file; a file without the .npy
// magic is taken raw, of rawRows rows of rawCols float32 (0: not allowed).
func openArray(path string, rawRows, rawCols int64) (*array, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, dataset.ErrNotFound)
		}
		return nil, err
	}
	defer f.Close()
	var magic [6]byte
	if _, err := io.ReadFull(f, magic[:]); err == nil && string(magic[:]) != "\x93NUMPY" && rawRows > 0 {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if want := 4 * rawRows * rawCols; st.Size() != want {
			return nil, fmt.Errorf("%s: %w: a raw float32 file of %d bytes, the reference maps %d×%d (%d bytes)", path, dataset.ErrCorrupt, st.Size(), rawRows, rawCols, want)
		}
		a := &array{path: path, dtype: dataset.Float32, shape: []int64{rawRows}}
		if rawCols > 1 {
			a.shape = append(a.shape, rawCols)
		}
		return a, nil
	}
	h, err := dataset.ReadNPYFileHeader(path)
	if err != nil {
		return nil, fmt.Errorf("%s/%w", filepath.Base(filepath.Dir(path)), err)
	}
	a := &array{path: path, dtype: h.Spec.DType, off: h.DataOffset}
	n := int64(h.Spec.DType.Size())
	for _, d := range h.Spec.Shape {
		a.shape = append(a.shape, int64(d))
		if d < 0 || d > 0 && n > math.MaxInt64/int64(d) {
			return nil, fmt.Errorf("%s: %w: shape %v", path, dataset.ErrCorrupt, h.Spec.Shape)
		}
		n *= int64(d)
	}
	if len(a.shape) == 0 {
		return nil, fmt.Errorf("%s: %w: a scalar, want an array", path, dataset.ErrCorrupt)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size()-a.off < n {
		return nil, fmt.Errorf("%s: %w: %d bytes of data, its header's %s%v needs %d", path, dataset.ErrCorrupt, st.Size()-a.off, h.Spec.DType, h.Spec.Shape, n)
	}
	return a, nil
}

// values reads the elements at the flat indices idx (ascending order
// is fastest) as float64.
func (a *array) values(idx []int64) ([]float64, error) {
	f, err := os.Open(a.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(a.dtype.Size())
	out := make([]float64, len(idx))
	buf := make([]byte, size)
	for k, i := range idx {
		if _, err := f.ReadAt(buf, a.off+i*size); err != nil {
			return nil, fmt.Errorf("%s: %w: element %d: %w", a.path, dataset.ErrCorrupt, i, err)
		}
		if out[k], err = decode(a.dtype, buf); err != nil {
			return nil, fmt.Errorf("%s: %w", a.path, err)
		}
	}
	return out, nil
}

// all reads the whole array as int64 (an edge list).
func (a *array) int64s() ([]int64, error) {
	if a.dtype != dataset.Int64 && a.dtype != dataset.Int32 {
		return nil, fmt.Errorf("%s: %w: %s, want int64", a.path, dataset.ErrMismatch, a.dtype)
	}
	b, err := a.read(0, a.rows()*a.cols())
	if err != nil {
		return nil, err
	}
	size := a.dtype.Size()
	out := make([]int64, len(b)/size)
	for i := range out {
		if size == 8 {
			out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		} else {
			out[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	}
	return out, nil
}

// read reads n elements from element at.
func (a *array) read(at, n int64) ([]byte, error) {
	f := a.f
	if f == nil {
		var err error
		if f, err = os.Open(a.path); err != nil {
			return nil, err
		}
		defer f.Close()
	}
	size := int64(a.dtype.Size())
	b := make([]byte, n*size)
	if _, err := f.ReadAt(b, a.off+at*size); err != nil {
		return nil, fmt.Errorf("%s: %w: elements %d to %d: %w", a.path, dataset.ErrCorrupt, at, at+n, err)
	}
	return b, nil
}

// decode reads one element as float64.
func decode(t dataset.DType, b []byte) (float64, error) {
	switch t {
	case dataset.Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
	case dataset.Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case dataset.Int64:
		return float64(int64(binary.LittleEndian.Uint64(b))), nil
	case dataset.Int32:
		return float64(int32(binary.LittleEndian.Uint32(b))), nil
	case dataset.Int16:
		return float64(int16(binary.LittleEndian.Uint16(b))), nil
	case dataset.Uint8:
		return float64(b[0]), nil
	case dataset.Int8:
		return float64(int8(b[0])), nil
	}
	return 0, fmt.Errorf("%w: labels of %s", dataset.ErrMismatch, t)
}

// Dir is an IGBH processed directory, located.
type Dir struct {
	// Processed is DIR/SIZE/processed.
	Processed string
	// Size is SIZE: tiny, small, medium, large or full.
	Size string
}

// Locate finds the processed directory of an IGBH data set from path:
// the processed directory, its SIZE directory, or the data set's root
// (DIR, as the reference's --dataset-path) holding one size.
func Locate(path string) (Dir, bool) {
	at := func(p string) (Dir, bool) {
		if dataset.IsFile(filepath.Join(p, ValIdx)) && filepath.Base(p) == Processed {
			return Dir{Processed: p, Size: filepath.Base(filepath.Dir(p))}, true
		}
		return Dir{}, false
	}
	if d, ok := at(path); ok {
		return d, true
	}
	if d, ok := at(filepath.Join(path, Processed)); ok {
		return d, true
	}
	var found []Dir
	for _, size := range []string{"tiny", "small", "medium", "large", "full"} {
		if d, ok := at(filepath.Join(path, size, Processed)); ok {
			found = append(found, d)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return Dir{}, false
}

// rawShape is the raw file's rows and columns the reference maps for a
// node type's features (cols FeatureDim) or the paper labels (cols 1) at
// this size; 0 where the reference reads a .npy file.
func (d Dir) rawShape(nodeType int, cols int64) (int64, int64) {
	n, ok := rawNodes[d.Size]
	if !ok || nodeType > 1 || cols == 1 && nodeType != 0 {
		return 0, 0
	}
	return n[nodeType], cols
}

// openLabels opens paper/node_label_2K.npy.
func (d Dir) openLabels() (*array, error) {
	rows, cols := d.rawShape(0, 1)
	a, err := openArray(filepath.Join(d.Processed, "paper", Labels), rows, cols)
	if err != nil {
		return nil, err
	}
	if len(a.shape) != 1 && (len(a.shape) != 2 || a.shape[1] != 1) {
		return nil, fmt.Errorf("%s: %w: shape %v, want one label per paper", a.path, dataset.ErrMismatch, a.shape)
	}
	return a, nil
}

// readValIdx reads val_idx.pt, a 1-D integer tensor torch.save wrote
// (split_seeds.py's torch.randperm slice), and checks each paper against
// the number of papers.
func (d Dir) readValIdx(papers int64) ([]int64, error) {
	p := filepath.Join(d.Processed, ValIdx)
	t, err := torchpt.ReadFile(p)
	if errors.Is(err, torchpt.ErrFormat) {
		return nil, fmt.Errorf("%s: %w: %w", p, dataset.ErrCorrupt, err)
	}
	if err != nil {
		return nil, err
	}
	if t.Ints == nil || len(t.Shape) != 1 {
		return nil, fmt.Errorf("%s: %w: a tensor of %s of size %v, want a 1-D integer tensor", p, dataset.ErrCorrupt, t.DType, t.Shape)
	}
	v := t.Ints
	if len(v) == 0 {
		return nil, fmt.Errorf("%s: %w: no validation papers", p, dataset.ErrCorrupt)
	}
	for i, n := range v {
		if n < 0 || n >= papers {
			return nil, fmt.Errorf("%s: %w: entry %d is paper %d, the labels hold %d papers", p, dataset.ErrCorrupt, i, n, papers)
		}
	}
	return v, nil
}

// ValLabels reads the validation papers and their labels as the
// official accuracy_igbh.py does (labels[val_idx], the float labels
// truncated to integers as torch's .to(torch.long)).
func (d Dir) ValLabels() (valIdx, labels []int64, err error) {
	la, err := d.openLabels()
	if err != nil {
		return nil, nil, err
	}
	if valIdx, err = d.readValIdx(la.rows()); err != nil {
		return nil, nil, err
	}
	sorted := slices.Clone(valIdx)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	v, err := la.values(sorted)
	if err != nil {
		return nil, nil, err
	}
	labels = make([]int64, len(valIdx))
	for i, n := range valIdx {
		k, _ := slices.BinarySearch(sorted, n)
		x := v[k]
		if math.IsNaN(x) || math.Abs(x) >= 1<<62 {
			return nil, nil, fmt.Errorf("%s: %w: paper %d's label is %v", la.path, dataset.ErrCorrupt, n, x)
		}
		labels[i] = int64(x)
	}
	return valIdx, labels, nil
}
