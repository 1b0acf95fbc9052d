package dataset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The directory-per-sample form: a directory holding one subdirectory per
// sample, each with one .npy file per tensor (input_ids.npy,
// input_mask.npy...), named alike in every sample. Samples are in the
// order of the directory's val_map.txt (subdirectory names, with or
// without labels) when there is one, else in name order. A tensor's shape
// may differ from sample to sample; its dtype and rank may not.

// sampleDirs is an open directory-per-sample data set.
type sampleDirs struct {
	dir    string
	names  []string  // sample subdirectories, in index order
	schema Schema    // tensors by name order
	shapes [][][]int // per sample, per tensor
	labels []int
}

var _ Dataset = (*sampleDirs)(nil)

// IsSampleDirs reports whether dir holds a data set in the
// directory-per-sample form: subdirectories and no .npy file of its own.
func IsSampleDirs(dir string) bool {
	es, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	dirs := false
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".npy") {
			return false
		}
		dirs = dirs || e.IsDir()
	}
	return dirs
}

// OpenSampleDirs opens a directory-per-sample data set. It reads every
// sample's headers, so that a missing, mis-typed or mis-shaped file is an
// error now, naming the file and the sample.
func OpenSampleDirs(dir string) (Dataset, error) {
	d := &sampleDirs{dir: dir}
	if err := d.list(); err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	for i := range d.names {
		if err := d.readHeaders(i); err != nil {
			return nil, fmt.Errorf("data set %s: %w", dir, err)
		}
	}
	if err := d.schema.check(); err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	return d, nil
}

// list finds the samples: val_map.txt's names, else every subdirectory.
func (d *sampleDirs) list() error {
	if p := filepath.Join(d.dir, DefaultLabelMap); IsFile(p) {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		entries, err := ParseLabelMap(p, f)
		if err != nil {
			return err
		}
		for _, e := range entries {
			st, err := os.Stat(filepath.Join(d.dir, e.Name))
			if err != nil || !st.IsDir() {
				return fmt.Errorf("%w: no sample directory %s, listed in %s", ErrNotFound, e.Name, p)
			}
			d.names = append(d.names, e.Name)
			if e.HasLabel {
				d.labels = append(d.labels, e.Label)
			}
		}
		return nil
	}
	es, err := os.ReadDir(d.dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.IsDir() {
			d.names = append(d.names, e.Name())
		}
	}
	if len(d.names) == 0 {
		return fmt.Errorf("%w: no sample directories", ErrNotFound)
	}
	return nil
}

// readHeaders reads sample i's tensor headers; sample 0's define the
// tensors, later ones must match them.
func (d *sampleDirs) readHeaders(i int) error {
	sdir := filepath.Join(d.dir, d.names[i])
	files, err := filepath.Glob(filepath.Join(sdir, "*.npy"))
	if err != nil {
		return err
	}
	slices.Sort(files)
	fail := func(err error) error { return fmt.Errorf("sample %d (%s): %w", i, d.names[i], err) }
	if i == 0 {
		if len(files) == 0 {
			return fail(fmt.Errorf("%w: no .npy files", ErrNotFound))
		}
		for _, f := range files {
			d.schema = append(d.schema, TensorSpec{Name: strings.TrimSuffix(filepath.Base(f), ".npy")})
		}
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".npy"))
	}
	want := make([]string, len(d.schema))
	for k, t := range d.schema {
		want[k] = t.Name
	}
	if !slices.Equal(names, want) {
		return fail(fmt.Errorf("%w: tensors %v, sample 0 has %v", ErrMismatch, names, want))
	}
	shapes := make([][]int, len(files))
	for k, f := range files {
		h, err := ReadNPYFileHeader(f)
		if err != nil {
			return fail(err)
		}
		t := &d.schema[k]
		if i == 0 {
			t.DType, t.Shape = h.Spec.DType, slices.Clone(h.Spec.Shape)
		}
		switch {
		case h.Spec.DType != t.DType:
			return fail(fmt.Errorf("%w: %s holds %s, sample 0's is %s", ErrMismatch, filepath.Base(f), h.Spec.DType, t.DType))
		case len(h.Spec.Shape) != len(t.Shape):
			return fail(fmt.Errorf("%w: %s has shape %v, sample 0's has %d dimensions", ErrMismatch, filepath.Base(f), h.Spec.Shape, len(t.Shape)))
		}
		varying(t.Shape, h.Spec.Shape)
		shapes[k] = h.Spec.Shape
	}
	d.shapes = append(d.shapes, shapes)
	return nil
}

func (d *sampleDirs) Name() string   { return d.dir }
func (d *sampleDirs) Len() int       { return len(d.names) }
func (d *sampleDirs) Schema() Schema { return d.schema }
func (d *sampleDirs) Labels() []int  { return d.labels }
func (d *sampleDirs) Close() error   { return nil }

func (d *sampleDirs) Shapes(i int) ([][]int, error) {
	if err := checkIndex(d, i); err != nil {
		return nil, err
	}
	return d.shapes[i], nil
}

// ReadSample reads each tensor file of sample i, checking that it still
// has the shape it had at Open and holds exactly its data.
func (d *sampleDirs) ReadSample(i int, dst []byte) error {
	if err := checkRead(d, i, dst); err != nil {
		return err
	}
	for k, t := range d.schema {
		spec := Spec{DType: t.DType, Shape: d.shapes[i][k]}
		if err := d.readTensor(i, t.Name, spec, dst[:spec.Bytes()]); err != nil {
			return fmt.Errorf("data set %s: sample %d (%s): %w", d.dir, i, d.names[i], err)
		}
		dst = dst[spec.Bytes():]
	}
	return nil
}

func (d *sampleDirs) readTensor(i int, name string, spec Spec, dst []byte) error {
	file := name + ".npy"
	f, err := os.Open(filepath.Join(d.dir, d.names[i], file))
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 4096)
	h, err := ReadNPYHeader(br)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if !h.Spec.Equal(spec) {
		return fmt.Errorf("%w: %s holds %s, it held %s when the data set was opened", ErrMismatch, file, h.Spec, spec)
	}
	if _, err := io.ReadFull(br, dst); err != nil {
		return fmt.Errorf("%w: %s is truncated: %w", ErrCorrupt, file, err)
	}
	if n, _ := br.Read(make([]byte, 1)); n != 0 {
		return fmt.Errorf("%w: %s: bytes after the array", ErrCorrupt, file)
	}
	return nil
}
