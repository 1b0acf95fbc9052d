package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DefaultLabelMap is the label map file looked for in a .npy directory.
const DefaultLabelMap = "val_map.txt"

// LabelMapEntry is one line of a label map: a sample's file name and label.
type LabelMapEntry struct {
	Name  string
	Label int
	// HasLabel is false for a line with a name only.
	HasLabel bool
}

// ParseLabelMap reads a label map in ImageNet's val_map.txt form: one
// sample per line, "NAME LABEL" or "NAME", blank lines ignored. Either all
// lines have labels or none do.
//
// # Errors
//
// Wraps [ErrCorrupt] naming file and line for a malformed line, a negative
// label, a duplicate name, mixed labeled and unlabeled lines, or no lines.
func ParseLabelMap(file string, r io.Reader) ([]LabelMapEntry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	var out []LabelMapEntry
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		e := LabelMapEntry{Name: f[0]}
		switch len(f) {
		case 1:
		case 2:
			l, err := strconv.Atoi(f[1])
			if err != nil || l < 0 {
				return nil, fmt.Errorf("%w: %s:%d: label %q is not a non-negative integer", ErrCorrupt, file, line, f[1])
			}
			e.Label, e.HasLabel = l, true
		default:
			return nil, fmt.Errorf("%w: %s:%d: want \"NAME LABEL\", got %d fields", ErrCorrupt, file, line, len(f))
		}
		if prev, ok := seen[e.Name]; ok {
			return nil, fmt.Errorf("%w: %s:%d: %s is already on line %d", ErrCorrupt, file, line, e.Name, prev)
		}
		seen[e.Name] = line
		if len(out) > 0 && out[0].HasLabel != e.HasLabel {
			return nil, fmt.Errorf("%w: %s:%d: some lines have labels and some do not", ErrCorrupt, file, line)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s:%d: %w", ErrCorrupt, file, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: no samples", ErrCorrupt, file)
	}
	return out, nil
}

// npyDir is a directory of .npy files, one per sample.
type npyDir struct {
	dir    string
	files  []string
	spec   Spec
	labels []int
}

var _ Dataset = (*npyDir)(nil)

// OpenNPYDir opens the MLPerf reference preprocessed form: one .npy file
// per sample in dir, in the order of labelMap (a path; "" means
// dir/val_map.txt when it exists, else every *.npy in name order without
// labels). A label map names each sample's source file (NAME); the sample
// is NAME.npy, or NAME with its extension replaced by .npy.
//
// It reads the first file's header for the spec and checks that every
// listed file exists; each other file's header is checked when it is read.
func OpenNPYDir(dir, labelMap string) (Dataset, error) {
	d := &npyDir{dir: dir}
	if labelMap == "" {
		if p := filepath.Join(dir, DefaultLabelMap); IsFile(p) {
			labelMap = p
		}
	}
	if labelMap != "" {
		if err := d.fromLabelMap(labelMap); err != nil {
			return nil, err
		}
	} else {
		m, err := filepath.Glob(filepath.Join(dir, "*.npy"))
		if err != nil {
			return nil, fmt.Errorf("data set %s: %w", dir, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("data set %s: %w: no .npy files and no %s", dir, ErrNotFound, DefaultLabelMap)
		}
		slices.Sort(m)
		d.files = m
	}
	h, err := ReadNPYFileHeader(d.files[0])
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	d.spec = h.Spec
	return d, nil
}

func (d *npyDir) fromLabelMap(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("data set %s: label map %s: %w", d.dir, path, ErrNotFound)
		}
		return fmt.Errorf("data set %s: %w", d.dir, err)
	}
	defer f.Close()
	entries, err := ParseLabelMap(path, f)
	if err != nil {
		return fmt.Errorf("data set %s: %w", d.dir, err)
	}
	var missing []string
	for _, e := range entries {
		p := d.sampleFile(e.Name)
		if p == "" {
			missing = append(missing, e.Name)
			p = filepath.Join(d.dir, e.Name+".npy")
		}
		d.files = append(d.files, p)
		if e.HasLabel {
			d.labels = append(d.labels, e.Label)
		}
	}
	if len(missing) > 0 {
		more := ""
		if len(missing) > 3 {
			more = fmt.Sprintf(" and %d more", len(missing)-3)
			missing = missing[:3]
		}
		return fmt.Errorf("data set %s: %w: no .npy file for %s%s listed in %s",
			d.dir, ErrNotFound, strings.Join(missing, ", "), more, path)
	}
	return nil
}

// sampleFile finds the .npy file of a label map name, or "".
func (d *npyDir) sampleFile(name string) string {
	for _, c := range []string{name + ".npy", strings.TrimSuffix(name, filepath.Ext(name)) + ".npy", name} {
		if p := filepath.Join(d.dir, c); strings.HasSuffix(c, ".npy") && IsFile(p) {
			return p
		}
	}
	return ""
}

func (d *npyDir) Name() string   { return d.dir }
func (d *npyDir) Len() int       { return len(d.files) }
func (d *npyDir) Schema() Schema { return SingleSchema(d.spec) }
func (d *npyDir) Labels() []int  { return d.labels }
func (d *npyDir) Close() error   { return nil }

func (d *npyDir) Shapes(i int) ([][]int, error) {
	if err := checkIndex(d, i); err != nil {
		return nil, err
	}
	return [][]int{d.spec.Shape}, nil
}

// ReadSample reads file i, checking that its header matches the first's
// and that it holds exactly one sample.
func (d *npyDir) ReadSample(i int, dst []byte) error {
	if err := checkRead(d, i, dst); err != nil {
		return err
	}
	path := d.files[i]
	fail := func(err error) error { return fmt.Errorf("data set %s: sample %d: %w", d.dir, i, err) }
	f, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 4096)
	h, err := ReadNPYHeader(br)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", filepath.Base(path), err))
	}
	if !h.Spec.Equal(d.spec) {
		return fail(fmt.Errorf("%w: %s holds %s, the data set's first sample is %s",
			ErrMismatch, filepath.Base(path), h.Spec, d.spec))
	}
	if _, err := io.ReadFull(br, dst); err != nil {
		return fail(fmt.Errorf("%w: %s: data: %w", ErrCorrupt, filepath.Base(path), err))
	}
	if n, _ := br.Read(make([]byte, 1)); n != 0 {
		return fail(fmt.Errorf("%w: %s: bytes after the array", ErrCorrupt, filepath.Base(path)))
	}
	return nil
}
