package parquet

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Magic opens and closes every Parquet file.
const Magic = "PAR1"

// ErrFormat is a file that is not Parquet, or not the Parquet this
// package reads.
var ErrFormat = errors.New("parquet")

// Type is a column's physical type.
type Type int

// The physical types.
const (
	Boolean Type = iota
	Int32
	Int64
	Int96
	Float
	Double
	ByteArray
	FixedLenByteArray
)

var typeNames = [...]string{"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"}

func (t Type) String() string {
	if t >= 0 && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type %d", int(t))
}

// Repetition is a schema field's repetition type.
type Repetition int

// The repetition types.
const (
	Required Repetition = iota
	Optional
	Repeated
)

// Leaf is a leaf column of the schema.
type Leaf struct {
	// Path names the fields from the root's child down to the leaf:
	// ["potential_product_categories", "list", "element"].
	Path []string
	Type Type
	// TypeLength is a FIXED_LEN_BYTE_ARRAY's length.
	TypeLength int
	// MaxDef and MaxRep are the highest definition and repetition
	// levels.
	MaxDef, MaxRep int
	// RepeatedDef is the definition level of the outermost repeated
	// field above or at the leaf: a level below it holds no element.
	RepeatedDef int
}

// Name is the leaf's path joined with dots.
func (l Leaf) Name() string { return strings.Join(l.Path, ".") }

// File is an open Parquet file: its schema and row groups. Columns are
// read on demand.
type File struct {
	name    string
	r       io.ReaderAt
	size    int64
	leaves  []Leaf
	groups  [][]chunk // row group, then leaf
	rows    []int64   // rows per row group
	numRows int64
}

// chunk is one column chunk's metadata.
type chunk struct {
	codec                int
	numValues            int64
	start, length        int64
	dictOffset, dataOffs int64
}

// Open reads the footer of a Parquet file of size bytes; name is how
// errors name it.
//
// # Errors
//
// Wraps [ErrFormat] for a file without the magic, a footer that does
// not decode, or a schema or chunk that does not add up.
func Open(name string, r io.ReaderAt, size int64) (*File, error) {
	f := &File{name: name, r: r, size: size}
	if size < 12 {
		return nil, f.errorf("%d bytes are too few for a Parquet file", size)
	}
	tail := make([]byte, 8)
	if _, err := r.ReadAt(tail, size-8); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	head := make([]byte, 4)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if string(tail[4:]) != Magic || string(head) != Magic {
		return nil, f.errorf("no %s magic at the start and end", Magic)
	}
	n := int64(binary.LittleEndian.Uint32(tail))
	if n > size-12 {
		return nil, f.errorf("footer of %d bytes in a file of %d", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	meta, err := (&compact{b: footer}).readStruct(0)
	if err != nil {
		return nil, f.errorf("footer: %v", err)
	}
	if err := f.schema(meta.list(2)); err != nil {
		return nil, err
	}
	f.numRows = meta.int(3)
	var total int64
	for gi, g := range meta.list(4) {
		rg, _ := g.(tstruct)
		cols := rg.list(1)
		if len(cols) != len(f.leaves) {
			return nil, f.errorf("row group %d has %d column chunks for %d leaf columns", gi, len(cols), len(f.leaves))
		}
		chunks := make([]chunk, len(cols))
		for ci, c := range cols {
			cc, _ := c.(tstruct)
			if cc.str(1) != "" {
				return nil, f.errorf("row group %d column %s lies in another file (%s)", gi, f.leaves[ci].Name(), cc.str(1))
			}
			md := cc.sub(3)
			if md == nil {
				return nil, f.errorf("row group %d column %s has no metadata", gi, f.leaves[ci].Name())
			}
			k := chunk{codec: int(md.int(4)), numValues: md.int(5), dataOffs: md.int(9), dictOffset: -1, length: md.int(7)}
			k.start = k.dataOffs
			if md.has(11) {
				k.dictOffset = md.int(11)
				if k.dictOffset > 0 && k.dictOffset < k.start {
					k.start = k.dictOffset
				}
			}
			if k.start < 4 || k.length < 0 || k.start+k.length > size-8-n || k.numValues < 0 {
				return nil, f.errorf("row group %d column %s: chunk at %d of %d bytes lies outside the data", gi, f.leaves[ci].Name(), k.start, k.length)
			}
			chunks[ci] = k
		}
		f.groups = append(f.groups, chunks)
		f.rows = append(f.rows, rg.int(3))
		total += rg.int(3)
	}
	if f.numRows == 0 {
		f.numRows = total // some writers leave it 0
	}
	if total != f.numRows {
		return nil, f.errorf("row groups hold %d rows, the footer says %d", total, f.numRows)
	}
	return f, nil
}

func (f *File) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", f.name, ErrFormat, fmt.Sprintf(format, args...))
}

// schema flattens the schema elements (depth first, each group followed
// by its children) into leaves.
func (f *File) schema(elems []any) error {
	if len(elems) == 0 {
		return f.errorf("empty schema")
	}
	i := 1
	var walk func(path []string, def, rep, repDef, children, depth int) error
	walk = func(path []string, def, rep, repDef, children, depth int) error {
		if depth > maxDepth {
			return f.errorf("schema nested too deep")
		}
		for range children {
			if i >= len(elems) {
				return f.errorf("schema ends inside a group")
			}
			e, _ := elems[i].(tstruct)
			i++
			p := append(append([]string(nil), path...), e.str(4))
			d, r, rd := def, rep, repDef
			switch Repetition(e.int(3)) {
			case Optional:
				d++
			case Repeated:
				d++
				r++
				if rd == 0 {
					rd = d
				}
			}
			if n := int(e.int(5)); n > 0 || !e.has(1) {
				if n > len(elems) {
					return f.errorf("group %s has %d children", strings.Join(p, "."), n)
				}
				if err := walk(p, d, r, rd, n, depth+1); err != nil {
					return err
				}
				continue
			}
			t := Type(e.int(1))
			if t < Boolean || t > FixedLenByteArray {
				return f.errorf("column %s: unknown physical type %d", strings.Join(p, "."), t)
			}
			l := Leaf{Path: p, Type: t, TypeLength: int(e.int(2)), MaxDef: d, MaxRep: r, RepeatedDef: rd}
			if t == FixedLenByteArray && l.TypeLength <= 0 {
				return f.errorf("column %s: FIXED_LEN_BYTE_ARRAY of length %d", l.Name(), l.TypeLength)
			}
			f.leaves = append(f.leaves, l)
		}
		return nil
	}
	root, _ := elems[0].(tstruct)
	if err := walk(nil, 0, 0, 0, int(root.int(5)), 0); err != nil {
		return err
	}
	if i != len(elems) {
		return f.errorf("schema has %d elements, its groups %d", len(elems), i)
	}
	return nil
}

// Leaves are the leaf columns, in schema order.
func (f *File) Leaves() []Leaf { return f.leaves }

// NumRows is the number of rows.
func (f *File) NumRows() int64 { return f.numRows }

// Column reads the leaf column named by path (its dotted name's parts)
// across every row group.
//
// # Errors
//
// Names the file and column: no such column, a page that does not
// decode, or values that do not add up to the rows.
func (f *File) Column(path ...string) (*Column, error) {
	name := strings.Join(path, ".")
	li := -1
	for i, l := range f.leaves {
		if l.Name() == name {
			li = i
		}
	}
	if li < 0 {
		return nil, fmt.Errorf("%s: no column %s", f.name, name)
	}
	c := &Column{Leaf: f.leaves[li]}
	for gi := range f.groups {
		if err := f.readChunk(c, gi, li); err != nil {
			return nil, fmt.Errorf("%s: column %s, row group %d: %w", f.name, name, gi, err)
		}
	}
	return c, nil
}

// Value is one value of a column, in the field its type fills: Bytes
// (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96), Int (INT32, INT64), Float
// (FLOAT, DOUBLE), Bool (BOOLEAN).
type Value struct {
	Bytes []byte
	Int   int64
	Float float64
	Bool  bool
}

// Column is a leaf column read whole: a definition and a repetition
// level per entry (nil where the maximum is 0) and the values of the
// entries that are defined, in order.
type Column struct {
	Leaf     Leaf
	Def, Rep []int16
	Values   []Value
	entries  int
}

// Scalars assembles a column without repetition into rows: nil where
// the row's value is null.
//
// # Errors
//
// A repeated column.
func (c *Column) Scalars() ([]*Value, error) {
	if c.Leaf.MaxRep > 0 {
		return nil, fmt.Errorf("column %s is repeated", c.Leaf.Name())
	}
	out := make([]*Value, c.entries)
	v := 0
	for i := range out {
		if c.Def == nil || int(c.Def[i]) == c.Leaf.MaxDef {
			out[i] = &c.Values[v]
			v++
		}
	}
	return out, nil
}

// Lists assembles a column of one repeated level into rows: each row's
// elements, nil for a null element; a row without elements (an empty or
// null list) is empty.
//
// # Errors
//
// A column of more than one repeated level.
func (c *Column) Lists() ([][]*Value, error) {
	if c.Leaf.MaxRep != 1 {
		return nil, fmt.Errorf("column %s has %d repeated levels, not 1", c.Leaf.Name(), c.Leaf.MaxRep)
	}
	var out [][]*Value
	v := 0
	for i := range c.entries {
		if c.Rep[i] == 0 {
			out = append(out, nil)
		}
		d := int(c.Def[i])
		switch {
		case d < c.Leaf.RepeatedDef:
		case d == c.Leaf.MaxDef:
			out[len(out)-1] = append(out[len(out)-1], &c.Values[v])
			v++
		default:
			out[len(out)-1] = append(out[len(out)-1], nil)
		}
	}
	return out, nil
}

// Page types and encodings.
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3

	encPlain           = 0
	encPlainDictionary = 2
	encRLE             = 3
	encRLEDictionary   = 8
)

var codecNames = map[int]string{0: "UNCOMPRESSED", 1: "SNAPPY", 2: "GZIP", 3: "LZO", 4: "BROTLI", 5: "LZ4", 6: "ZSTD", 7: "LZ4_RAW"}

func (f *File) readChunk(c *Column, gi, li int) error {
	k := f.groups[gi][li]
	buf := make([]byte, k.length)
	if _, err := f.r.ReadAt(buf, k.start); err != nil {
		return err
	}
	var dict []Value
	var got int64
	rowsBefore := c.rows()
	p := 0
	for got < k.numValues {
		if p >= len(buf) {
			return fmt.Errorf("%w: %d of %d values in the chunk's pages", ErrFormat, got, k.numValues)
		}
		th := &compact{b: buf[p:]}
		h, err := th.readStruct(0)
		if err != nil {
			return fmt.Errorf("%w: page header at %d: %v", ErrFormat, k.start+int64(p), err)
		}
		p += th.off
		size := h.int(3)
		if size < 0 || size > int64(len(buf)-p) {
			return fmt.Errorf("%w: page at %d of %d bytes overruns the chunk", ErrFormat, k.start+int64(p), size)
		}
		page := buf[p : p+int(size)]
		p += int(size)
		usize := h.int(2)
		if usize < 0 || usize > 1<<31 {
			return fmt.Errorf("%w: page of %d bytes uncompressed", ErrFormat, usize)
		}
		switch h.int(1) {
		case pageDictionary:
			dh := h.sub(7)
			if dh == nil {
				return fmt.Errorf("%w: dictionary page without its header", ErrFormat)
			}
			if e := dh.int(2); e != encPlain && e != encPlainDictionary {
				return fmt.Errorf("%w: dictionary of encoding %d", ErrFormat, e)
			}
			data, err := decompress(k.codec, page, int(usize))
			if err != nil {
				return err
			}
			n := dh.int(1)
			if n < 0 || n > int64(len(data))*8+1 {
				return fmt.Errorf("%w: dictionary of %d values in %d bytes", ErrFormat, n, len(data))
			}
			if dict, _, err = plain(c.Leaf, data, int(n)); err != nil {
				return fmt.Errorf("dictionary: %w", err)
			}
		case pageData:
			dh := h.sub(5)
			if dh == nil {
				return fmt.Errorf("%w: data page without its header", ErrFormat)
			}
			data, err := decompress(k.codec, page, int(usize))
			if err != nil {
				return err
			}
			n := dh.int(1)
			if err := c.page(data, n, int(dh.int(2)), dict, true, 0, 0); err != nil {
				return err
			}
			got += n
		case pageDataV2:
			dh := h.sub(8)
			if dh == nil {
				return fmt.Errorf("%w: data page v2 without its header", ErrFormat)
			}
			rl, dl := dh.int(6), dh.int(5)
			if rl < 0 || dl < 0 || rl+dl > int64(len(page)) {
				return fmt.Errorf("%w: levels of %d+%d bytes in a page of %d", ErrFormat, rl, dl, len(page))
			}
			levels, vals := page[:rl+dl], page[rl+dl:]
			if dh.boolean(7, true) {
				if vals, err = decompress(k.codec, vals, int(usize-rl-dl)); err != nil {
					return err
				}
			}
			data := append(append([]byte(nil), levels...), vals...)
			n := dh.int(1)
			if err := c.page(data, n, int(dh.int(4)), dict, false, int(rl), int(dl)); err != nil {
				return err
			}
			got += n
		default: // index pages and others carry no values
		}
	}
	if got != k.numValues {
		return fmt.Errorf("%w: pages hold %d values, the chunk %d", ErrFormat, got, k.numValues)
	}
	if want := f.rows[gi]; c.rows()-rowsBefore != want {
		return fmt.Errorf("%w: %d rows, the row group has %d", ErrFormat, c.rows()-rowsBefore, want)
	}
	return nil
}

// rows counts the rows read so far.
func (c *Column) rows() int64 {
	if c.Leaf.MaxRep == 0 {
		return int64(c.entries)
	}
	var n int64
	for _, r := range c.Rep {
		if r == 0 {
			n++
		}
	}
	return n
}

// page decodes one data page of n entries: levels then values. A v1
// page's levels carry a 4-byte length; a v2 page's lengths are rl, dl.
func (c *Column) page(data []byte, n int64, enc int, dict []Value, v1 bool, rl, dl int) error {
	if n < 0 || n > int64(len(data))*8+1<<20 {
		return fmt.Errorf("%w: page of %d values", ErrFormat, n)
	}
	off := 0
	levels := func(maxLevel, length int) ([]int16, error) {
		if maxLevel == 0 {
			if !v1 { // a v2 page may hold the levels of a column without them
				if length < 0 || length > len(data)-off {
					return nil, fmt.Errorf("%w: levels of %d bytes overrun the page", ErrFormat, length)
				}
				off += length
			}
			return nil, nil
		}
		if v1 {
			if off+4 > len(data) {
				return nil, fmt.Errorf("%w: levels cut short", ErrFormat)
			}
			length = int(binary.LittleEndian.Uint32(data[off:]))
			off += 4
		}
		if length < 0 || length > len(data)-off {
			return nil, fmt.Errorf("%w: levels of %d bytes overrun the page", ErrFormat, length)
		}
		ls, err := hybrid(data[off:off+length], bitWidth(maxLevel), int(n))
		if err != nil {
			return nil, fmt.Errorf("levels: %w", err)
		}
		off += length
		out := make([]int16, len(ls))
		for i, l := range ls {
			if int(l) > maxLevel {
				return nil, fmt.Errorf("%w: level %d over the maximum %d", ErrFormat, l, maxLevel)
			}
			out[i] = int16(l)
		}
		return out, nil
	}
	rep, err := levels(c.Leaf.MaxRep, rl)
	if err != nil {
		return err
	}
	def, err := levels(c.Leaf.MaxDef, dl)
	if err != nil {
		return err
	}
	if len(rep) > 0 && rep[0] != 0 && c.entries == 0 {
		return fmt.Errorf("%w: the first entry continues a row", ErrFormat)
	}
	defined := int(n)
	if def != nil {
		defined = 0
		for _, d := range def {
			if int(d) == c.Leaf.MaxDef {
				defined++
			}
		}
	}
	vals := data[off:]
	var out []Value
	switch enc {
	case encPlain:
		out, _, err = plain(c.Leaf, vals, defined)
	case encPlainDictionary, encRLEDictionary:
		out, err = dictionary(vals, dict, defined)
	case encRLE:
		if c.Leaf.Type != Boolean {
			return fmt.Errorf("%w: RLE encoding of a %s column", ErrFormat, c.Leaf.Type)
		}
		if len(vals) < 4 {
			return fmt.Errorf("%w: RLE booleans cut short", ErrFormat)
		}
		var bits []uint64
		bits, err = hybrid(vals[4:], 1, defined)
		for _, b := range bits {
			out = append(out, Value{Bool: b == 1})
		}
	default:
		return fmt.Errorf("%w: encoding %d is not read", ErrFormat, enc)
	}
	if err != nil {
		return err
	}
	c.Rep = append(c.Rep, rep...)
	c.Def = append(c.Def, def...)
	c.Values = append(c.Values, out...)
	c.entries += int(n)
	return nil
}

func dictionary(data []byte, dict []Value, n int) ([]Value, error) {
	if n == 0 {
		return nil, nil
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: dictionary indices cut short", ErrFormat)
	}
	w := int(data[0])
	if w > 32 {
		return nil, fmt.Errorf("%w: dictionary index width %d", ErrFormat, w)
	}
	idx, err := hybrid(data[1:], w, n)
	if err != nil {
		return nil, fmt.Errorf("dictionary indices: %w", err)
	}
	out := make([]Value, n)
	for i, x := range idx {
		if x >= uint64(len(dict)) {
			return nil, fmt.Errorf("%w: index %d in a dictionary of %d", ErrFormat, x, len(dict))
		}
		out[i] = dict[x]
	}
	return out, nil
}

// plain decodes n PLAIN values; it returns the bytes used.
func plain(l Leaf, data []byte, n int) ([]Value, int, error) {
	out := make([]Value, 0, min(n, len(data)+1))
	off := 0
	short := func() error { return fmt.Errorf("%w: %d %s values cut short at %d", ErrFormat, n, l.Type, len(out)) }
	fixed := func(size int) ([]byte, error) {
		if size > len(data)-off {
			return nil, short()
		}
		b := data[off : off+size]
		off += size
		return b, nil
	}
	for range n {
		var v Value
		switch l.Type {
		case Boolean:
			i := len(out)
			if i/8 >= len(data) {
				return nil, 0, short()
			}
			v.Bool = data[i/8]>>(i%8)&1 == 1
			off = i/8 + 1
		case Int32:
			b, err := fixed(4)
			if err != nil {
				return nil, 0, err
			}
			v.Int = int64(int32(binary.LittleEndian.Uint32(b)))
		case Int64:
			b, err := fixed(8)
			if err != nil {
				return nil, 0, err
			}
			v.Int = int64(binary.LittleEndian.Uint64(b))
		case Float:
			b, err := fixed(4)
			if err != nil {
				return nil, 0, err
			}
			v.Float = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case Double:
			b, err := fixed(8)
			if err != nil {
				return nil, 0, err
			}
			v.Float = math.Float64frombits(binary.LittleEndian.Uint64(b))
		case Int96:
			b, err := fixed(12)
			if err != nil {
				return nil, 0, err
			}
			v.Bytes = b
		case FixedLenByteArray:
			b, err := fixed(l.TypeLength)
			if err != nil {
				return nil, 0, err
			}
			v.Bytes = b
		case ByteArray:
			b, err := fixed(4)
			if err != nil {
				return nil, 0, err
			}
			if v.Bytes, err = fixed(int(binary.LittleEndian.Uint32(b))); err != nil {
				return nil, 0, err
			}
		}
		out = append(out, v)
	}
	return out, off, nil
}

func bitWidth(maxLevel int) int {
	w := 0
	for maxLevel > 0 {
		w++
		maxLevel >>= 1
	}
	return w
}

// hybrid decodes n values of the RLE/bit-packed hybrid encoding of
// width w.
func hybrid(data []byte, w, n int) ([]uint64, error) {
	out := make([]uint64, 0, min(n, 1<<16))
	off := 0
	byteWidth := (w + 7) / 8
	for len(out) < n {
		h, k := binary.Uvarint(data[off:])
		if k <= 0 {
			return nil, fmt.Errorf("%w: %d of %d values in the run headers", ErrFormat, len(out), n)
		}
		off += k
		if h&1 == 0 { // RLE run
			count := h >> 1
			if off+byteWidth > len(data) {
				return nil, fmt.Errorf("%w: RLE run cut short", ErrFormat)
			}
			var v uint64
			for i := range byteWidth {
				v |= uint64(data[off+i]) << (8 * i)
			}
			off += byteWidth
			if w < 64 && v>>w != 0 {
				return nil, fmt.Errorf("%w: RLE value %d wider than %d bits", ErrFormat, v, w)
			}
			for c := uint64(0); c < count && len(out) < n; c++ {
				out = append(out, v)
			}
			continue
		}
		groups := int(h >> 1)
		if groups > len(data) || groups*w > len(data)-off {
			return nil, fmt.Errorf("%w: bit-packed run cut short", ErrFormat)
		}
		run := data[off : off+groups*w]
		off += groups * w
		for i := 0; i < groups*8 && len(out) < n; i++ {
			var v uint64
			for b := range w {
				bit := i*w + b
				v |= uint64(run[bit/8]>>(bit%8)&1) << b
			}
			out = append(out, v)
		}
	}
	return out, nil
}

func decompress(codec int, data []byte, size int) ([]byte, error) {
	switch codec {
	case 0:
		return data, nil
	case 1:
		out, err := SnappyDecode(data)
		if err != nil {
			return nil, err
		}
		if len(out) != size {
			return nil, fmt.Errorf("%w: page of %d bytes decompressed to %d", ErrFormat, size, len(out))
		}
		return out, nil
	case 2:
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		out, err := io.ReadAll(io.LimitReader(zr, int64(size)+1))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		if len(out) != size {
			return nil, fmt.Errorf("%w: page of %d bytes decompressed to %d", ErrFormat, size, len(out))
		}
		return out, nil
	}
	name, ok := codecNames[codec]
	if !ok {
		name = fmt.Sprintf("%d", codec)
	}
	return nil, fmt.Errorf("%w: codec %s is not read (UNCOMPRESSED, SNAPPY and GZIP are)", ErrFormat, name)
}
