package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Dataset is a data set whose samples all share one [Spec]. It is safe for
// concurrent ReadSample calls.
type Dataset interface {
	// Name is where the data set came from (a path, or "builtin:NAME").
	Name() string
	// Len is the number of samples.
	Len() int
	// Spec is every sample's dtype and shape.
	Spec() Spec
	// ReadSample reads sample i into dst, which is Spec().Bytes() long.
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
}

// ErrMismatch is wrapped by errors about a sample whose dtype or shape is
// not the expected one.
var ErrMismatch = errors.New("dtype or shape mismatch")

// ErrNotFound is wrapped by errors about a missing data set or sample file.
var ErrNotFound = errors.New("not found")

func checkRead(d Dataset, i int, dst []byte) error {
	if i < 0 || i >= d.Len() {
		return fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.Name(), i, d.Len())
	}
	if len(dst) != d.Spec().Bytes() {
		return fmt.Errorf("data set %s: buffer of %d bytes for a %d-byte sample", d.Name(), len(dst), d.Spec().Bytes())
	}
	return nil
}

// Options tell Open how to read a data set.
type Options struct {
	// LabelMap is the label map of a .npy directory; "" looks for
	// val_map.txt in the directory, and without one the directory's .npy
	// files are taken in name order, unlabeled.
	LabelMap string
}

// Open opens a data set by path: a directory of .npy files (the MLPerf
// reference preprocessed form) or a compact-format file.
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
	spec   Spec
	data   []byte
	labels []int
}

var _ Dataset = (*Memory)(nil)

// NewMemory makes a data set of samples (each spec.Bytes() long) and
// optional labels (nil, or one per sample).
func NewMemory(name string, spec Spec, samples [][]byte, labels []int) (*Memory, error) {
	if labels != nil && len(labels) != len(samples) {
		return nil, fmt.Errorf("data set %s: %d labels for %d samples", name, len(labels), len(samples))
	}
	m := &Memory{name: name, spec: spec, labels: labels, data: make([]byte, 0, len(samples)*spec.Bytes())}
	for i, s := range samples {
		if len(s) != spec.Bytes() {
			return nil, fmt.Errorf("data set %s: sample %d: %w: %d bytes, %s is %d", name, i, ErrMismatch, len(s), spec, spec.Bytes())
		}
		m.data = append(m.data, s...)
	}
	return m, nil
}

// Name returns the name given to NewMemory.
func (m *Memory) Name() string { return m.name }

// Len returns the number of samples.
func (m *Memory) Len() int { return len(m.data) / max(1, m.spec.Bytes()) }

// Spec returns the samples' spec.
func (m *Memory) Spec() Spec { return m.spec }

// Labels returns the labels, or nil.
func (m *Memory) Labels() []int { return m.labels }

// Close does nothing.
func (m *Memory) Close() error { return nil }

// ReadSample copies sample i into dst.
func (m *Memory) ReadSample(i int, dst []byte) error {
	if err := checkRead(m, i, dst); err != nil {
		return err
	}
	copy(dst, m.data[i*len(dst):])
	return nil
}

// Check reports whether d's samples are what a benchmark expects: want's
// dtype, and want's shape when it has one.
func Check(d Dataset, want Spec) error {
	got := d.Spec()
	if want.DType != InvalidDType && got.DType != want.DType {
		return fmt.Errorf("data set %s: %w: samples are %s, the benchmark wants %s", d.Name(), ErrMismatch, got, want)
	}
	if len(want.Shape) > 0 && !got.Equal(Spec{DType: got.DType, Shape: want.Shape}) {
		return fmt.Errorf("data set %s: %w: samples are %s, the benchmark wants %s", d.Name(), ErrMismatch, got, want)
	}
	return nil
}
