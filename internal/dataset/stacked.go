package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The stacked form is how the MLPerf reference and NVIDIA's harness store
// preprocessed samples of several tensors: a directory with one .npy file
// per tensor, each stacking every sample along its first axis, padded to
// the longest (BERT: input_ids.npy, input_mask.npy, segment_ids.npy, each
// int32[N, 384]), and a side file saying each sample's true shape:
//
//   - lengths.npy, integers [N]: sample i of every tensor is its first
//     lengths[i] rows (the first axis after the stacking one is cut);
//   - NAME.shape.npy, integers [N, rank]: the full shape of sample i of
//     tensor NAME (every axis may be cut), which beats lengths.npy.
//
// Every other .npy file of the directory is a tensor, named after its file
// and ordered by name. A directory is read in this form when it holds
// lengths.npy or a .shape.npy file, or when it holds no label map and its
// files look like tensors rather than samples ([IsStackedByShape]): then
// every sample has its tensors' padded shape, as a BERT set padded to 384
// tokens needs no side file.
const (
	stackedLengths     = "lengths.npy"
	stackedShapeSuffix = ".shape.npy"
)

// IsStacked reports whether dir holds a data set in the stacked form
// marked by a side file.
func IsStacked(dir string) bool {
	if IsFile(filepath.Join(dir, stackedLengths)) {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*"+stackedShapeSuffix))
	return len(m) > 0
}

// IsStackedByShape reports whether dir, a directory of .npy files with no
// label map and no side file, holds tensors stacked over samples rather
// than one sample per file: two files or more, all of one shape whose
// first axis (the samples) is longer than one, and names that are not
// sample names. Sample files are named after their sample (an image's
// name, a case number, an index), and every such name has a digit in it;
// tensor names (input_ids, input_mask, segment_ids) need none. A file
// whose header cannot be read makes it false: the per-sample reader then
// names the file.
func IsStackedByShape(dir string) bool {
	m, err := filepath.Glob(filepath.Join(dir, "*.npy"))
	if err != nil || len(m) < 2 {
		return false
	}
	if !slices.ContainsFunc(m, func(p string) bool { return !hasDigit(strings.TrimSuffix(filepath.Base(p), ".npy")) }) {
		return false
	}
	var shape []int
	for _, p := range m {
		h, err := ReadNPYFileHeader(p)
		if err != nil {
			return false
		}
		switch {
		case shape == nil:
			shape = h.Spec.Shape
		case !slices.Equal(shape, h.Spec.Shape):
			return false
		}
	}
	return len(shape) >= 2 && shape[0] > 1
}

// hasDigit reports whether s has an ASCII digit.
func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}

// stacked is an open stacked-form directory.
type stacked struct {
	dir    string
	count  int
	schema Schema
	ts     []stackedTensor
	// side is the side file that gives the samples' shapes: lengths.npy,
	// .shape.npy files, or "" when every sample is padded-shaped.
	side string
}

// stackedTensor is one tensor's file and each sample's shape in it.
type stackedTensor struct {
	file   string
	f      *os.File
	padded []int   // one sample's padded shape
	row    int64   // padded sample bytes
	off    int64   // where sample 0 starts
	shapes [][]int // per sample; nil when every sample is padded-shaped
}

var _ Dataset = (*stacked)(nil)

// OpenStacked opens a directory in the stacked form. It reads every
// header and side file and checks each file's size, so that a truncated,
// mis-typed or mis-shaped file is an error now, naming the file (and the
// sample), not mid-run.
func OpenStacked(dir string) (Dataset, error) {
	d, err := openStacked(dir)
	if err != nil {
		if d != nil {
			d.Close()
		}
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	return d, nil
}

func openStacked(dir string) (*stacked, error) {
	m, err := filepath.Glob(filepath.Join(dir, "*.npy"))
	if err != nil {
		return nil, err
	}
	slices.Sort(m)
	d := &stacked{dir: dir, count: -1}
	var lengths []int64
	if p := filepath.Join(dir, stackedLengths); IsFile(p) {
		if lengths, err = readIndexFile(p, 1); err != nil {
			return d, err
		}
		d.side = stackedLengths
	}
	if shapes, _ := filepath.Glob(filepath.Join(dir, "*"+stackedShapeSuffix)); len(shapes) > 0 {
		d.side = "NAME" + stackedShapeSuffix
	}
	for _, p := range m {
		base := filepath.Base(p)
		if base == stackedLengths || strings.HasSuffix(base, stackedShapeSuffix) {
			continue
		}
		t, err := d.openTensor(p)
		if err != nil {
			return d, err
		}
		name := strings.TrimSuffix(base, ".npy")
		if err := d.cut(&t, name, lengths); err != nil {
			return d, err
		}
		d.ts = append(d.ts, t)
	}
	if len(d.ts) == 0 {
		return d, fmt.Errorf("%w: no tensor .npy files beside %s", ErrNotFound, stackedLengths)
	}
	if lengths != nil && len(lengths) != d.count {
		return d, fmt.Errorf("%w: %s has %d lengths for %d samples", ErrMismatch, stackedLengths, len(lengths), d.count)
	}
	if err := d.schema.check(); err != nil {
		return d, err
	}
	return d, nil
}

// openTensor opens one stacked tensor file and checks its size.
func (d *stacked) openTensor(path string) (stackedTensor, error) {
	base := filepath.Base(path)
	h, err := ReadNPYFileHeader(path)
	if err != nil {
		return stackedTensor{}, err
	}
	if len(h.Spec.Shape) < 2 {
		return stackedTensor{}, fmt.Errorf("%w: %s holds %s: want [samples, ...] with at least one axis per sample",
			ErrMismatch, base, h.Spec)
	}
	n := h.Spec.Shape[0]
	if d.count >= 0 && n != d.count {
		return stackedTensor{}, fmt.Errorf("%w: %s stacks %d samples, %s %d", ErrMismatch, base, n, d.ts[0].file, d.count)
	}
	d.count = n
	t := stackedTensor{file: base, padded: h.Spec.Shape[1:], off: h.DataOffset}
	t.row = int64(Spec{DType: h.Spec.DType, Shape: t.padded}.Bytes())
	st, err := os.Stat(path)
	if err != nil {
		return stackedTensor{}, err
	}
	if want := h.DataOffset + int64(n)*t.row; st.Size() != want {
		have := (st.Size() - h.DataOffset) / max(t.row, 1)
		if st.Size() < want {
			return stackedTensor{}, fmt.Errorf("%w: %s is truncated: %d bytes, %d samples of %v need %d; sample %d is the first missing",
				ErrCorrupt, base, st.Size(), n, t.padded, want, max(have, 0))
		}
		return stackedTensor{}, fmt.Errorf("%w: %s: %d bytes after its %d samples", ErrCorrupt, base, st.Size()-want, n)
	}
	if t.f, err = os.Open(path); err != nil {
		return stackedTensor{}, err
	}
	d.schema = append(d.schema, TensorSpec{Name: strings.TrimSuffix(base, ".npy"), DType: h.Spec.DType, Shape: slices.Clone(t.padded)})
	return t, nil
}

// cut reads each sample's true shape of tensor t (its .shape.npy, else
// lengths) and marks the dimensions that vary in the schema.
func (d *stacked) cut(t *stackedTensor, name string, lengths []int64) error {
	spec := &d.schema[len(d.schema)-1]
	if p := filepath.Join(d.dir, name+stackedShapeSuffix); IsFile(p) {
		rows, err := readIndexFile(p, len(t.padded))
		if err != nil {
			return err
		}
		if len(rows) != d.count*len(t.padded) {
			return fmt.Errorf("%w: %s has %d shapes for %d samples", ErrMismatch, filepath.Base(p), len(rows)/len(t.padded), d.count)
		}
		t.shapes = make([][]int, d.count)
		for i := range d.count {
			t.shapes[i] = make([]int, len(t.padded))
			for k := range t.padded {
				t.shapes[i][k] = int(rows[i*len(t.padded)+k])
			}
		}
		return t.checkShapes(filepath.Base(p), spec)
	}
	if lengths == nil {
		return nil
	}
	if len(lengths) != d.count {
		return fmt.Errorf("%w: %s has %d lengths, %s stacks %d samples", ErrMismatch, stackedLengths, len(lengths), t.file, d.count)
	}
	t.shapes = make([][]int, d.count)
	for i, l := range lengths {
		t.shapes[i] = slices.Clone(t.padded)
		t.shapes[i][0] = int(l)
	}
	return t.checkShapes(stackedLengths, spec)
}

// checkShapes checks every sample's shape against the padding and marks
// in spec the dimensions that differ between samples.
func (t *stackedTensor) checkShapes(side string, spec *TensorSpec) error {
	for i, sh := range t.shapes {
		for k, v := range sh {
			if v < 0 || v > t.padded[k] {
				return fmt.Errorf("%w: %s: sample %d of %s has shape %v, past the padded %v", ErrMismatch, side, i, t.file, sh, t.padded)
			}
		}
		varying(spec.Shape, sh)
	}
	return nil
}

// readIndexFile reads a .npy of integers with rank dimensions per sample
// (shape [N] for rank 1... [N, rank]) as int64 values.
func readIndexFile(path string, rank int) ([]int64, error) {
	base := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := ReadNPYHeader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", base, err)
	}
	want := "[samples]"
	okShape := len(h.Spec.Shape) == 1 && rank == 1
	if strings.HasSuffix(base, stackedShapeSuffix) {
		want = fmt.Sprintf("[samples, %d]", rank)
		okShape = len(h.Spec.Shape) == 2 && h.Spec.Shape[1] == rank
	}
	if !okShape {
		return nil, fmt.Errorf("%w: %s holds %s, want integers %s", ErrMismatch, base, h.Spec, want)
	}
	var get func([]byte) int64
	switch h.Spec.DType {
	case Int32:
		get = func(b []byte) int64 { return int64(int32(binary.LittleEndian.Uint32(b))) }
	case Int64:
		get = func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }
	case Int16:
		get = func(b []byte) int64 { return int64(int16(binary.LittleEndian.Uint16(b))) }
	case Uint8:
		get = func(b []byte) int64 { return int64(b[0]) }
	default:
		return nil, fmt.Errorf("%w: %s holds %s, want integers (int32 or int64) %s", ErrMismatch, base, h.Spec.DType, want)
	}
	buf := make([]byte, h.Spec.Bytes())
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, fmt.Errorf("%w: %s is truncated: %w", ErrCorrupt, base, err)
	}
	if n, _ := f.Read(make([]byte, 1)); n != 0 {
		return nil, fmt.Errorf("%w: %s: bytes after the array", ErrCorrupt, base)
	}
	size := h.Spec.DType.Size()
	out := make([]int64, len(buf)/size)
	for i := range out {
		out[i] = get(buf[i*size:])
	}
	return out, nil
}

// Form says how the directory was read, for `dataset info`.
func (d *stacked) Form() string {
	if d.side == "" {
		return fmt.Sprintf("stacked .npy per tensor, %d samples, no side file: every sample has its padded shape "+
			"(add %s or NAME%s when samples are shorter; a %s when each file is one sample)",
			d.count, stackedLengths, stackedShapeSuffix, DefaultLabelMap)
	}
	return fmt.Sprintf("stacked .npy per tensor, %d samples, shapes from %s", d.count, d.side)
}

func (d *stacked) Name() string   { return d.dir }
func (d *stacked) Len() int       { return d.count }
func (d *stacked) Schema() Schema { return d.schema }
func (d *stacked) Labels() []int  { return nil }

func (d *stacked) Close() error {
	var errs []error
	for _, t := range d.ts {
		if t.f != nil {
			errs = append(errs, t.f.Close())
		}
	}
	return errors.Join(errs...)
}

func (d *stacked) Shapes(i int) ([][]int, error) {
	if err := checkIndex(d, i); err != nil {
		return nil, err
	}
	out := make([][]int, len(d.ts))
	for k, t := range d.ts {
		out[k] = t.padded
		if t.shapes != nil {
			out[k] = t.shapes[i]
		}
	}
	return out, nil
}

// ReadSample reads sample i of each tensor: the leading block of its
// padded row that its shape covers.
func (d *stacked) ReadSample(i int, dst []byte) error {
	if err := checkRead(d, i, dst); err != nil {
		return err
	}
	shapes, _ := d.Shapes(i)
	var row []byte
	for k, t := range d.ts {
		spec := Spec{DType: d.schema[k].DType, Shape: shapes[k]}
		n := spec.Bytes()
		off := t.off + int64(i)*t.row
		if slices.Equal(shapes[k], t.padded) || len(t.padded) == 1 || prefixCut(shapes[k], t.padded) {
			// The sample is contiguous at the start of its row.
			if _, err := t.f.ReadAt(dst[:n], off); err != nil {
				return fmt.Errorf("data set %s: sample %d: %s: %w", d.dir, i, t.file, err)
			}
		} else {
			if int64(cap(row)) < t.row {
				row = make([]byte, t.row)
			}
			row = row[:t.row]
			if _, err := t.f.ReadAt(row, off); err != nil {
				return fmt.Errorf("data set %s: sample %d: %s: %w", d.dir, i, t.file, err)
			}
			gather(dst[:n], row, shapes[k], t.padded, spec.DType.Size())
		}
		dst = dst[n:]
	}
	return nil
}

// prefixCut reports whether only the first axis of padded is cut, which
// leaves the sample contiguous.
func prefixCut(shape, padded []int) bool { return slices.Equal(shape[1:], padded[1:]) }

// gather copies the block of shape at the origin of a C-order array of
// the padded shape (elements of size bytes) from src to dst.
func gather(dst, src []byte, shape, padded []int, size int) {
	blocks(shape, padded, size, func(off, n int) { dst = dst[copy(dst, src[off:off+n]):] })
}

// scatter is gather's inverse: it copies a C-order block of shape into the
// origin of a padded array.
func scatter(dst, src []byte, shape, padded []int, size int) {
	blocks(shape, padded, size, func(off, n int) { src = src[copy(dst[off:off+n], src):] })
}

// blocks calls f with the byte offset in the padded array and the length
// of each contiguous run (a last-axis row) of the block of shape at its
// origin, in C order.
func blocks(shape, padded []int, size int, f func(off, n int)) {
	r := len(shape)
	if r == 0 {
		f(0, size)
		return
	}
	if slices.Contains(shape, 0) {
		return
	}
	// stride[k] is the byte stride of axis k in the padded array.
	stride := make([]int, r)
	s := size
	for k := r - 1; k >= 0; k-- {
		stride[k] = s
		s *= padded[k]
	}
	idx := make([]int, r-1)
	for {
		off := 0
		for k, v := range idx {
			off += v * stride[k]
		}
		f(off, shape[r-1]*size)
		k := r - 2
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// WriteStacked writes d into the empty or new directory dir in the
// stacked form: one NAME.npy per tensor, each sample padded with zeros to
// the largest shape, and lengths.npy when only the first axis of the
// tensors varies (all alike), else a NAME.shape.npy per varying tensor.
func WriteStacked(dir string, d Dataset) error {
	schema := d.Schema()
	n := d.Len()
	all := make([][][]int, n)
	padded := make([][]int, len(schema))
	for k, t := range schema {
		padded[k] = slices.Clone(t.Shape)
	}
	for i := range n {
		shapes, err := d.Shapes(i)
		if err != nil {
			return err
		}
		all[i] = shapes
		for k := range schema {
			for j, v := range shapes[k] {
				if schema[k].Shape[j] == Varies {
					padded[k][j] = max(padded[k][j], v)
				}
			}
		}
	}
	for k := range padded {
		for j, v := range padded[k] {
			padded[k][j] = max(v, 0)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	stacks := make([][]byte, len(schema))
	rows := make([]int, len(schema))
	for k, t := range schema {
		if len(t.Shape) == 0 {
			return fmt.Errorf("write stacked: tensor %s is a scalar: the stacked form needs one axis per sample", t.Name)
		}
		rows[k] = Spec{DType: t.DType, Shape: padded[k]}.Bytes()
		stacks[k] = make([]byte, n*rows[k])
	}
	err := ReadAll(d, func(i int, shapes [][]int, data []byte) error {
		for k, t := range schema {
			spec := Spec{DType: t.DType, Shape: shapes[k]}
			scatter(stacks[k][i*rows[k]:(i+1)*rows[k]], data[:spec.Bytes()], shapes[k], padded[k], t.DType.Size())
			data = data[spec.Bytes():]
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write stacked: %w", err)
	}
	for k, t := range schema {
		spec := Spec{DType: t.DType, Shape: append([]int{n}, padded[k]...)}
		if err := WriteNPYFile(filepath.Join(dir, t.Name+".npy"), spec, stacks[k]); err != nil {
			return err
		}
	}
	return writeStackedShapes(dir, schema, all)
}

// writeStackedShapes writes lengths.npy when only the first axis varies,
// alike in every tensor, else NAME.shape.npy for each varying tensor.
func writeStackedShapes(dir string, schema Schema, all [][][]int) error {
	firstOnly := true
	for k, t := range schema {
		firstOnly = firstOnly && slices.Index(t.Shape[1:], Varies) < 0
		for _, sh := range all {
			firstOnly = firstOnly && sh[k][0] == sh[0][0]
		}
	}
	if firstOnly {
		lengths := make([]byte, 0, 8*len(all))
		for _, sh := range all {
			lengths = binary.LittleEndian.AppendUint64(lengths, uint64(sh[0][0]))
		}
		return WriteNPYFile(filepath.Join(dir, stackedLengths), Spec{DType: Int64, Shape: []int{len(all)}}, lengths)
	}
	for k, t := range schema {
		if t.Fixed() {
			continue
		}
		var b []byte
		for _, sh := range all {
			for _, v := range sh[k] {
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			}
		}
		spec := Spec{DType: Int64, Shape: []int{len(all), len(t.Shape)}}
		if err := WriteNPYFile(filepath.Join(dir, t.Name+stackedShapeSuffix), spec, b); err != nil {
			return err
		}
	}
	return nil
}
