package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Dataset is a data set: samples of one or more named tensors, described
// by a [Schema], each tensor's shape fixed or varying from sample to
// sample. A sample's bytes are its tensors' bytes concatenated in schema
// order. It is safe for concurrent Shapes and ReadSample calls.
type Dataset interface {
	// Name is where the data set came from (a path, or "builtin:NAME").
	Name() string
	// Len is the number of samples.
	Len() int
	// Schema describes every sample's tensors.
	Schema() Schema
	// Shapes returns sample i's shape of each tensor, in schema order.
	// The caller must not modify them.
	Shapes(i int) ([][]int, error)
	// ReadSample reads sample i into dst, which is
	// Schema().SampleBytes(shapes of i) long.
	ReadSample(i int, dst []byte) error
	// Labels returns one label per sample, or nil when the data set has
	// none. The caller must not modify it.
	Labels() []int
	// Close releases open files.
	Close() error
}

// Verifier is implemented by data sets that can check every byte against
// a checksum (the compact format).
type Verifier interface {
	Verify() error
	// VerifyBytes is how many bytes Verify reads.
	VerifyBytes() int64
}

// ErrMismatch is wrapped by errors about a sample whose dtype or shape is
// not the expected one.
var ErrMismatch = errors.New("dtype or shape mismatch")

// ErrNotFound is wrapped by errors about a missing data set or sample file.
var ErrNotFound = errors.New("not found")

// checkIndex rejects an index out of range.
func checkIndex(d Dataset, i int) error {
	if i < 0 || i >= d.Len() {
		return fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.Name(), i, d.Len())
	}
	return nil
}

// checkRead rejects an index out of range or a buffer of the wrong size.
func checkRead(d Dataset, i int, dst []byte) error {
	if err := checkIndex(d, i); err != nil {
		return err
	}
	shapes, err := d.Shapes(i)
	if err != nil {
		return err
	}
	if n := d.Schema().SampleBytes(shapes); len(dst) != n {
		return fmt.Errorf("data set %s: buffer of %d bytes for the %d-byte sample %d", d.Name(), len(dst), n, i)
	}
	return nil
}

// SampleBytes returns the size of sample i of d.
func SampleBytes(d Dataset, i int) (int, error) {
	shapes, err := d.Shapes(i)
	if err != nil {
		return 0, err
	}
	return d.Schema().SampleBytes(shapes), nil
}

// ReadAll reads every sample of d in index order, calling f with each
// sample's shapes and bytes (valid during the call): a corrupt, truncated
// or mismatched file shows as an error naming the file and the sample.
func ReadAll(d Dataset, f func(i int, shapes [][]int, data []byte) error) error {
	var buf []byte
	for i := range d.Len() {
		shapes, err := d.Shapes(i)
		if err != nil {
			return err
		}
		n := d.Schema().SampleBytes(shapes)
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if err := d.ReadSample(i, buf); err != nil {
			return err
		}
		if f != nil {
			if err := f(i, shapes, buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// Options tell Open, and a benchmark's [Reader], how to read a data set.
type Options struct {
	// LabelMap is the file that lists the samples where a form has one
	// beside the data: the label map of a .npy directory (ImageNet's
	// val_map.txt), OpenImages' annotation JSON, DLRM's aggregation
	// trace. "" looks for it in the directory; a .npy directory without
	// val_map.txt is taken in name order, unlabeled.
	LabelMap string
	// Features is what a sample holds where a form offers a choice (a
	// LibriSpeech data set: "audio", "mel128" or "mel80"); the forms of
	// this package ignore it.
	Features string
}

// Open opens a data set by path: a directory of .npy files, one per
// sample (the MLPerf reference preprocessed form); a directory of stacked
// .npy files, one per tensor, with lengths.npy or NAME.shape.npy side
// files, or without them where the files are tensors of one shape rather
// than samples ([OpenStacked], [IsStackedByShape]); a directory of sample directories, one .npy per
// tensor in each ([OpenSampleDirs]); or a compact-format file.
//
// # Errors
//
// Wraps [ErrNotFound] for a missing path or sample file, [ErrCorrupt] for
// a malformed file, [ErrMismatch] when the .npy files disagree.
func Open(path string, o Options) (Dataset, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("data set %s: %w", path, ErrNotFound)
		}
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	if st.IsDir() {
		switch {
		case IsStacked(path):
			return OpenStacked(path)
		case IsSampleDirs(path):
			return OpenSampleDirs(path)
		case o.LabelMap == "" && !IsFile(filepath.Join(path, DefaultLabelMap)) && IsStackedByShape(path):
			return OpenStacked(path)
		}
		return OpenNPYDir(path, o.LabelMap)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	var magic [8]byte
	_, err = io.ReadFull(f, magic[:])
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	if string(magic[:7]) == compactMagic[:7] {
		return OpenCompact(path)
	}
	if string(magic[:6]) == npyMagic {
		return nil, fmt.Errorf("data set %s: %w: a single .npy file; pass the directory that holds one .npy per sample (and its val_map.txt)",
			path, ErrCorrupt)
	}
	return nil, fmt.Errorf("data set %s: %w: neither a directory of .npy files nor an mlperf-host compact file (%s)",
		path, ErrCorrupt, filepath.Ext(path))
}

// Memory is a data set held in memory.
type Memory struct {
	name   string
	schema Schema
	shapes [][][]int // per sample
	offs   []int     // sample i is data[offs[i]:offs[i+1]]
	data   []byte
	labels []int
}

var _ Dataset = (*Memory)(nil)

// NewMemory makes a data set of one fixed-shape tensor: samples (each
// spec.Bytes() long) and optional labels (nil, or one per sample).
func NewMemory(name string, spec Spec, samples [][]byte, labels []int) (*Memory, error) {
	schema := SingleSchema(spec)
	ms := make([]MemorySample, len(samples))
	for i, s := range samples {
		ms[i] = MemorySample{Shapes: [][]int{spec.Shape}, Data: s}
	}
	return NewTensorMemory(name, schema, ms, labels)
}

// MemorySample is one sample of [NewTensorMemory]: each tensor's shape, in
// schema order, and the tensors' bytes concatenated.
type MemorySample struct {
	Shapes [][]int
	Data   []byte
}

// NewTensorMemory makes a data set of samples of the given schema and
// optional labels.
func NewTensorMemory(name string, schema Schema, samples []MemorySample, labels []int) (*Memory, error) {
	if err := schema.check(); err != nil {
		return nil, fmt.Errorf("data set %s: %w", name, err)
	}
	if labels != nil && len(labels) != len(samples) {
		return nil, fmt.Errorf("data set %s: %d labels for %d samples", name, len(labels), len(samples))
	}
	m := &Memory{name: name, schema: schema, labels: labels, offs: []int{0}}
	for i, s := range samples {
		if err := schema.CheckShapes(s.Shapes); err != nil {
			return nil, fmt.Errorf("data set %s: sample %d: %w", name, i, err)
		}
		if n := schema.SampleBytes(s.Shapes); len(s.Data) != n {
			return nil, fmt.Errorf("data set %s: sample %d: %w: %d bytes, its shapes make %d", name, i, ErrMismatch, len(s.Data), n)
		}
		m.shapes = append(m.shapes, s.Shapes)
		m.data = append(m.data, s.Data...)
		m.offs = append(m.offs, len(m.data))
	}
	return m, nil
}

// Name returns the name given to NewMemory.
func (m *Memory) Name() string { return m.name }

// Len returns the number of samples.
func (m *Memory) Len() int { return len(m.shapes) }

// Schema returns the samples' schema.
func (m *Memory) Schema() Schema { return m.schema }

// Shapes returns sample i's shapes.
func (m *Memory) Shapes(i int) ([][]int, error) {
	if err := checkIndex(m, i); err != nil {
		return nil, err
	}
	return m.shapes[i], nil
}

// Labels returns the labels, or nil.
func (m *Memory) Labels() []int { return m.labels }

// Close does nothing.
func (m *Memory) Close() error { return nil }

// ReadSample copies sample i into dst.
func (m *Memory) ReadSample(i int, dst []byte) error {
	if err := checkRead(m, i, dst); err != nil {
		return err
	}
	copy(dst, m.data[m.offs[i]:m.offs[i+1]])
	return nil
}

// Check reports whether d's samples are what a benchmark of one tensor
// expects: one fixed-shape tensor of want's dtype, and want's shape when
// it has one.
func Check(d Dataset, want Spec) error {
	got, ok := d.Schema().Single()
	if !ok {
		return fmt.Errorf("data set %s: %w: samples are %s, the benchmark wants one tensor %s", d.Name(), ErrMismatch, d.Schema(), want)
	}
	if want.DType != InvalidDType && got.DType != want.DType {
		return fmt.Errorf("data set %s: %w: samples are %s, the benchmark wants %s", d.Name(), ErrMismatch, got, want)
	}
	if len(want.Shape) > 0 && !got.Equal(Spec{DType: got.DType, Shape: want.Shape}) {
		return fmt.Errorf("data set %s: %w: samples are %s, the benchmark wants %s", d.Name(), ErrMismatch, got, want)
	}
	return nil
}
