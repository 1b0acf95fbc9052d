package pickle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"time"
)

// Frame is a pandas DataFrame as pandas.read_pickle reads it: its column
// names and each column's cells, row by row.
//
// A cell of a numeric column is an int64, a float64 or a bool; a cell of
// an object column is the Python value the pickle holds (a string, a
// list as *[]any, a numpy [*Array] whose data is read, a number, nil).
type Frame struct {
	// Columns are the column names, in the frame's order.
	Columns []string
	// Index holds the row labels of an integer index other than 0..n-1;
	// nil for a RangeIndex from 0 by 1 or an integer index equal to one.
	Index []int64
	cols  [][]any
	rows  int
}

// Len is the number of rows.
func (f *Frame) Len() int { return f.rows }

// Column returns the cells of column name.
func (f *Frame) Column(name string) ([]any, bool) {
	for i, c := range f.Columns {
		if c == name {
			return f.cols[i], true
		}
	}
	return nil, false
}

// The pandas callables a DataFrame pickle names.
const (
	pdDataFrame    = "pandas.core.frame.DataFrame"
	pdBlockManager = "pandas.core.internals.managers.BlockManager"
	pdBlock        = "pandas._libs.internals._unpickle_block"
	pdNewIndex     = "pandas.core.indexes.base._new_Index"
	pdRangeIndex   = "pandas.core.indexes.range.RangeIndex"
	pySlice        = "builtins.slice"
	py2Slice       = "__builtin__.slice" // protocol 2 names Python 2's modules
)

// ReadFrameFile reads the DataFrame pickle at path (what
// pandas.DataFrame.to_pickle writes, uncompressed).
//
// # Errors
//
// Names path; see [ReadFrame].
func ReadFrameFile(path string) (*Frame, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	fr, err := ReadFrame(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fr, nil
}

// ReadFrame reads a DataFrame pickle of size bytes from r: pandas' block
// manager of numeric (int, uint, float, bool) and object blocks, a column
// index of strings and a RangeIndex or integer row index, as pandas 1.3
// to 2.x pickle them in protocols 2 to 5. The data of numpy arrays left
// in the file ([Span]) is read.
//
// # Errors
//
// A pickle that is not such a DataFrame, saying which part is not.
func ReadFrame(r interface {
	io.ReadSeeker
	io.ReaderAt
}, size int64,
) (*Frame, error) {
	v, err := Load(r, size)
	if err != nil {
		return nil, err
	}
	fr, err := frameOf(v, r)
	if err != nil {
		return nil, fmt.Errorf("pandas DataFrame: %w", err)
	}
	return fr, nil
}

// frameOf reads the DataFrame an unpickled value is.
func frameOf(v any, r io.ReaderAt) (*Frame, error) {
	o, ok := v.(*pyObject)
	if !ok || o.class.String() != pdDataFrame {
		return nil, fmt.Errorf("the pickle holds %s", describe(v))
	}
	st, ok := o.state.(*Dict)
	if !ok {
		return nil, errors.New("no state")
	}
	mgr, ok := st.Get("_mgr")
	if !ok {
		if mgr, ok = st.Get("_data"); !ok {
			return nil, errors.New("no block manager (_mgr)")
		}
	}
	m, ok := mgr.(*pyObject)
	if !ok || m.class.String() != pdBlockManager {
		return nil, fmt.Errorf("block manager is %s", describe(mgr))
	}
	args, _ := m.args.(Tuple)
	if len(args) != 2 {
		return nil, errors.New("block manager: want (blocks, axes)")
	}
	blocks, ok := args[0].(Tuple)
	if !ok {
		if l, isList := args[0].(*[]any); isList {
			blocks, ok = Tuple(*l), true
		}
	}
	axes, isList := args[1].(*[]any)
	if !ok || !isList || len(*axes) != 2 {
		return nil, errors.New("block manager: want a tuple of blocks and two axes")
	}
	fr := &Frame{}
	var err error
	if fr.Columns, err = columnNames((*axes)[0], r); err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	if fr.rows, fr.Index, err = rowIndex((*axes)[1], r); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	fr.cols = make([][]any, len(fr.Columns))
	for i, b := range blocks {
		if err := fr.block(b, r); err != nil {
			return nil, fmt.Errorf("block %d: %w", i, err)
		}
	}
	for i, c := range fr.cols {
		if c == nil && fr.rows > 0 {
			return nil, fmt.Errorf("column %q is in no block", fr.Columns[i])
		}
	}
	return fr, nil
}

// block places one block's columns.
func (f *Frame) block(b any, r io.ReaderAt) error {
	o, ok := b.(*pyObject)
	if !ok || o.class.String() != pdBlock {
		return fmt.Errorf("%s is not a block", describe(b))
	}
	a, _ := o.args.(Tuple)
	if len(a) != 3 {
		return errors.New("want (values, placement, ndim)")
	}
	arr, ok := a[0].(*Array)
	if !ok {
		return fmt.Errorf("values are %s, not a numpy array (an extension array is not read)", describe(a[0]))
	}
	locs, err := placement(a[1], len(f.Columns), r)
	if err != nil {
		return err
	}
	ncol, nrow := len(locs), f.rows
	if ndim, _ := a[2].(int64); ndim == 1 && ncol == 1 && len(arr.Shape) == 1 {
		arr.Shape = []int{1, arr.Shape[0]}
	}
	if len(arr.Shape) != 2 || arr.Shape[0] != ncol || arr.Shape[1] != nrow {
		return fmt.Errorf("values of shape %v for %d columns of %d rows", arr.Shape, ncol, nrow)
	}
	cells, err := arrayCells(arr, r)
	if err != nil {
		return err
	}
	for k, c := range locs {
		if c < 0 || c >= len(f.Columns) || f.cols[c] != nil {
			return fmt.Errorf("placement %d of %d columns", c, len(f.Columns))
		}
		col := make([]any, nrow)
		for i := range col {
			if arr.Fortran {
				col[i] = cells[i*ncol+k]
			} else {
				col[i] = cells[k*nrow+i]
			}
		}
		f.cols[c] = col
	}
	return nil
}

// placement reads a block's column positions, of a frame of n columns:
// a slice or an integer array.
func placement(v any, n int, r io.ReaderAt) ([]int, error) {
	if o, ok := v.(*pyObject); ok && (o.class.String() == pySlice || o.class.String() == py2Slice) {
		a, _ := o.args.(Tuple)
		if len(a) != 3 {
			return nil, errors.New("placement slice: want (start, stop, step)")
		}
		start, ok1 := a[0].(int64)
		stop, ok2 := a[1].(int64)
		step, ok3 := a[2].(int64)
		if a[2] == nil {
			step, ok3 = 1, true
		}
		if !ok1 || !ok2 || !ok3 || step <= 0 || start < 0 || stop > int64(n) {
			return nil, fmt.Errorf("placement slice %v of %d columns", a, n)
		}
		var locs []int
		for i := start; i < stop; i += step {
			locs = append(locs, int(i))
		}
		return locs, nil
	}
	ints, err := Ints(v, r)
	if err != nil {
		return nil, fmt.Errorf("placement: %w", err)
	}
	locs := make([]int, len(ints))
	for i, x := range ints {
		if x < 0 || x > math.MaxInt32 {
			return nil, fmt.Errorf("placement %d", x)
		}
		locs[i] = int(x)
	}
	return locs, nil
}

// columnNames reads the column index: strings.
func columnNames(v any, r io.ReaderAt) ([]string, error) {
	d, err := newIndex(v)
	if err != nil {
		return nil, err
	}
	data, _ := d.Get("data")
	arr, ok := data.(*Array)
	if !ok {
		return nil, fmt.Errorf("column index data %s", describe(data))
	}
	cells, err := arrayCells(arr, r)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cells))
	for i, c := range cells {
		s, ok := c.(string)
		if !ok {
			return nil, fmt.Errorf("column %d is named %s, not a string", i, describe(c))
		}
		names[i] = s
	}
	return names, nil
}

// rowIndex reads the row index: the row count, and the labels unless they
// are 0..n-1.
func rowIndex(v any, r io.ReaderAt) (int, []int64, error) {
	d, err := newIndex(v)
	if err != nil {
		return 0, nil, err
	}
	if o := v.(*pyObject); o.args.(Tuple)[0].(pyGlobal).String() == pdRangeIndex {
		start, _ := d.Get("start")
		stop, _ := d.Get("stop")
		step, _ := d.Get("step")
		a, ok1 := start.(int64)
		b, ok2 := stop.(int64)
		s, ok3 := step.(int64)
		if step == nil {
			s, ok3 = 1, true
		}
		if !ok1 || !ok2 || !ok3 || s == 0 {
			return 0, nil, fmt.Errorf("RangeIndex(%v, %v, %v)", start, stop, step)
		}
		n := max(int64(0), (b-a+s-sign(s))/s)
		if n > maxPickleItems {
			return 0, nil, fmt.Errorf("RangeIndex of %d rows", n)
		}
		if a == 0 && s == 1 {
			return int(n), nil, nil
		}
		labels := make([]int64, n)
		for i := range labels {
			labels[i] = a + int64(i)*s
		}
		return int(n), labels, nil
	}
	data, _ := d.Get("data")
	labels, err := Ints(data, r)
	if err != nil {
		return 0, nil, fmt.Errorf("row labels: %w", err)
	}
	for i, l := range labels {
		if l != int64(i) {
			return len(labels), labels, nil
		}
	}
	return len(labels), nil, nil
}

func sign(x int64) int64 {
	if x < 0 {
		return -1
	}
	return 1
}

// newIndex reads pandas' _new_Index(cls, state) call: its state.
func newIndex(v any) (*Dict, error) {
	o, ok := v.(*pyObject)
	if !ok || o.class.String() != pdNewIndex {
		return nil, fmt.Errorf("%s is not a pandas index", describe(v))
	}
	a, _ := o.args.(Tuple)
	if len(a) != 2 {
		return nil, errors.New("_new_Index: want (class, state)")
	}
	if _, ok := a[0].(pyGlobal); !ok {
		return nil, fmt.Errorf("_new_Index of %s", describe(a[0]))
	}
	d, ok := a[1].(*Dict)
	if !ok {
		return nil, fmt.Errorf("_new_Index state %s", describe(a[1]))
	}
	return d, nil
}

// Ints reads a list or tuple of Python integers, or a numpy integer
// array (its data in r where left in the file), as int64s: a token-id
// cell of a DataFrame.
//
// # Errors
//
// A value that is none of these, or an integer beyond int64.
func Ints(v any, r io.ReaderAt) ([]int64, error) {
	var items []any
	switch x := v.(type) {
	case *[]any:
		items = *x
	case Tuple:
		items = x
	case *Array:
		if len(x.Shape) != 1 {
			return nil, fmt.Errorf("a numpy array of shape %v, not a vector", x.Shape)
		}
		cells, err := arrayCells(x, r)
		if err != nil {
			return nil, err
		}
		items = cells
	default:
		return nil, fmt.Errorf("%s is not a list of integers", describe(v))
	}
	out := make([]int64, len(items))
	for i, it := range items {
		n, ok := it.(int64)
		if !ok {
			return nil, fmt.Errorf("item %d is %s, not an integer", i, describe(it))
		}
		out[i] = n
	}
	return out, nil
}

// arrayCells reads an array's elements in storage order: int64, float64
// or bool for a numeric dtype; the Python values for an object array.
func arrayCells(a *Array, r io.ReaderAt) ([]any, error) {
	n := 1
	for _, d := range a.Shape {
		if d != 0 && n > maxPickleItems/d {
			return nil, fmt.Errorf("an array of shape %v", a.Shape)
		}
		n *= d
	}
	if objs, ok := a.Data.([]any); ok {
		if len(objs) != n {
			return nil, fmt.Errorf("an object array of shape %v holds %d items", a.Shape, len(objs))
		}
		for i, o := range objs {
			if sub, ok := o.(*Array); ok {
				if err := readArrayData(sub, r); err != nil {
					return nil, fmt.Errorf("item %d: %w", i, err)
				}
			}
		}
		return objs, nil
	}
	if err := readArrayData(a, r); err != nil {
		return nil, err
	}
	b := a.Data.([]byte)
	descr := a.DType.Descr()
	size, dec, err := decoder(descr)
	if err != nil {
		return nil, err
	}
	if len(b) != n*size {
		return nil, fmt.Errorf("a %s array of shape %v holds %d bytes", descr, a.Shape, len(b))
	}
	cells := make([]any, n)
	for i := range cells {
		cells[i] = dec(b[i*size : (i+1)*size])
	}
	return cells, nil
}

// readArrayData reads an array's data left in the file.
func readArrayData(a *Array, r io.ReaderAt) error {
	s, ok := a.Data.(Span)
	if !ok {
		if _, ok := a.Data.([]byte); !ok {
			return fmt.Errorf("numpy array data of %T", a.Data)
		}
		return nil
	}
	if r == nil {
		return errors.New("numpy array data left in the file, and no file")
	}
	b := make([]byte, s.Length)
	if _, err := r.ReadAt(b, s.Offset); err != nil {
		return fmt.Errorf("numpy array data at byte %d: %w", s.Offset, err)
	}
	a.Data = b
	return nil
}

// decoder decodes one element of a numeric dtype.
func decoder(descr string) (int, func([]byte) any, error) {
	var bo binary.ByteOrder = binary.LittleEndian
	if descr[0] == '>' {
		bo = binary.BigEndian
	}
	switch descr[1:] {
	case "i1":
		return 1, func(b []byte) any { return int64(int8(b[0])) }, nil
	case "u1":
		return 1, func(b []byte) any { return int64(b[0]) }, nil
	case "b1":
		return 1, func(b []byte) any { return b[0] != 0 }, nil
	case "i2":
		return 2, func(b []byte) any { return int64(int16(bo.Uint16(b))) }, nil
	case "u2":
		return 2, func(b []byte) any { return int64(bo.Uint16(b)) }, nil
	case "i4":
		return 4, func(b []byte) any { return int64(int32(bo.Uint32(b))) }, nil
	case "u4":
		return 4, func(b []byte) any { return int64(bo.Uint32(b)) }, nil
	case "i8":
		return 8, func(b []byte) any { return int64(bo.Uint64(b)) }, nil
	case "f4":
		return 4, func(b []byte) any { return float64(math.Float32frombits(bo.Uint32(b))) }, nil
	case "f8":
		return 8, func(b []byte) any { return math.Float64frombits(bo.Uint64(b)) }, nil
	}
	return 0, nil, fmt.Errorf("numpy dtype %s is not read", descr)
}

// describe names a value's Python type for an error.
func describe(v any) string {
	switch x := v.(type) {
	case *pyObject:
		return "a " + x.class.String()
	case pyGlobal:
		return x.String()
	case nil:
		return "None"
	case string:
		return "a string"
	case *[]any:
		return "a list"
	case Tuple:
		return "a tuple"
	case *Dict:
		return "a dict"
	case *Array:
		return "a numpy array"
	}
	return fmt.Sprintf("a %T", v)
}

// IsFrameFile reports whether path is a DataFrame pickle with all the
// columns named.
//
// # Notes
//
// The readers of several benchmarks ask of one file in turn: the column
// names of the file last read are kept (by path, size and modification
// time), so that a large pickle is parsed once for all of them.
func IsFrameFile(path string, columns ...string) bool {
	names, ok := frameColumns(path)
	if !ok {
		return false
	}
	for _, c := range columns {
		if !slices.Contains(names, c) {
			return false
		}
	}
	return true
}

// lastColumns are the column names of the frame IsFrameFile read last.
var lastColumns struct {
	sync.Mutex
	path    string
	size    int64
	modTime time.Time
	names   []string
	ok      bool
}

// frameColumns reads the column names of the DataFrame pickle at path;
// ok is false for a file that is not one.
func frameColumns(path string) (names []string, ok bool) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, false
	}
	c := &lastColumns
	c.Lock()
	defer c.Unlock()
	if c.path == path && c.size == st.Size() && c.modTime.Equal(st.ModTime()) {
		return c.names, c.ok
	}
	f, err := ReadFrameFile(path)
	c.path, c.size, c.modTime, c.names, c.ok = path, st.Size(), st.ModTime(), nil, err == nil
	if err == nil {
		c.names = f.Columns
	}
	return c.names, c.ok
}
