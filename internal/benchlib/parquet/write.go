package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Kind is a field kind [Write] writes.
type Kind int

// The field kinds: an optional UTF-8 string, byte string or boolean; an
// optional list of optional strings (the three-level LIST of pyarrow);
// an optional group of fields; an optional int64, and an optional list
// of int64s (gpt-oss-120b's token ids).
const (
	String Kind = iota
	Bytes
	Bool
	StringList
	Group
	Int64Kind
	Int64List
)

// Field is a top-level field of the file, or a group's member.
type Field struct {
	Name   string
	Kind   Kind
	Fields []Field // a Group's
}

// WriteOptions say how [Write] stores the pages.
type WriteOptions struct {
	// Snappy compresses the pages with the SNAPPY codec (literal-only
	// blocks); false stores them UNCOMPRESSED.
	Snappy bool
	// Dictionary stores the String columns dictionary-encoded
	// (RLE_DICTIONARY), as pyarrow does by default.
	Dictionary bool
	// RowGroup is the number of rows per row group; 0 puts all in one.
	RowGroup int
	// V2 writes DATA_PAGE_V2 pages.
	V2 bool
}

// Write writes rows of fields as a Parquet file. A row holds one value
// per field: a string (String), []byte (Bytes), bool (Bool), []string
// (StringList), []any of the members' values (Group), int64 (Int64Kind),
// []int64 (Int64List), or nil for null.
//
// # Errors
//
// A value of the wrong type, naming its row and field; w's error.
func Write(w io.Writer, fields []Field, rows [][]any, opt WriteOptions) error {
	type leaf struct {
		path   []string
		kind   Kind
		get    func(row []any) (any, bool) // the leaf's value, and whether its group is defined
		maxDef int
		list   bool
	}
	var leaves []leaf
	for fi, f := range fields {
		switch f.Kind {
		case Group:
			for mi, m := range f.Fields {
				leaves = append(leaves, leaf{path: []string{f.Name, m.Name}, kind: m.Kind, maxDef: 2, get: func(row []any) (any, bool) {
					g, _ := row[fi].([]any)
					if g == nil {
						return nil, false
					}
					return g[mi], true
				}})
			}
		case StringList, Int64List:
			kind := String
			if f.Kind == Int64List {
				kind = Int64Kind
			}
			leaves = append(leaves, leaf{path: []string{f.Name, "list", "element"}, kind: kind, maxDef: 3, list: true, get: func(row []any) (any, bool) { return row[fi], true }})
		default:
			leaves = append(leaves, leaf{path: []string{f.Name}, kind: f.Kind, maxDef: 1, get: func(row []any) (any, bool) { return row[fi], true }})
		}
	}
	size := max(opt.RowGroup, 1)
	if opt.RowGroup == 0 {
		size = max(len(rows), 1)
	}
	out := &countWriter{w: w}
	out.write([]byte(Magic))
	var groups []byte
	nGroups := 0
	for start := 0; start < len(rows); start += size {
		part := rows[start:min(start+size, len(rows))]
		var cols []byte
		var groupBytes int64
		for _, l := range leaves {
			var def, rep []uint64
			var vals [][]byte // the PLAIN bytes of each defined value
			for ri, row := range part {
				if len(row) != len(fields) {
					return fmt.Errorf("row %d: %d values for %d fields", start+ri, len(row), len(fields))
				}
				v, ok := l.get(row)
				bad := func() error {
					return fmt.Errorf("row %d field %s: %T is not a %s", start+ri, l.path[0], v, kindName(l.kind))
				}
				if l.list {
					if v == nil {
						def, rep = append(def, 0), append(rep, 0)
						continue
					}
					list, err := listValues(v, l.kind)
					if err != nil {
						return fmt.Errorf("row %d field %s: %w", start+ri, l.path[0], err)
					}
					if len(list) == 0 {
						def, rep = append(def, 1), append(rep, 0)
					}
					for i, b := range list {
						def, rep = append(def, 3), append(rep, uint64(min(i, 1)))
						vals = append(vals, b)
					}
					continue
				}
				if !ok {
					def = append(def, 0)
					continue
				}
				if v == nil {
					def = append(def, uint64(l.maxDef-1))
					continue
				}
				def = append(def, uint64(l.maxDef))
				switch l.kind {
				case String:
					s, isStr := v.(string)
					if !isStr {
						return bad()
					}
					vals = append(vals, []byte(s))
				case Bytes:
					b, isBytes := v.([]byte)
					if !isBytes {
						return bad()
					}
					vals = append(vals, b)
				case Bool:
					b, isBool := v.(bool)
					if !isBool {
						return bad()
					}
					vals = append(vals, []byte{map[bool]byte{false: 0, true: 1}[b]})
				case Int64Kind:
					n, isInt := v.(int64)
					if !isInt {
						return bad()
					}
					vals = append(vals, binary.LittleEndian.AppendUint64(nil, uint64(n)))
				}
			}
			maxRep := 0
			if len(l.path) == 3 {
				maxRep = 1
			}
			typ := Type(kindType(l.kind))
			dictOffset := int64(-1)
			var dictPage []byte
			enc := encPlain
			var body []byte
			if opt.Dictionary && l.kind == String {
				dict, idx := map[string]int{}, make([]uint64, len(vals))
				var plainDict []byte
				for i, v := range vals {
					k, seen := dict[string(v)]
					if !seen {
						k = len(dict)
						dict[string(v)] = k
						plainDict = appendPlain(plainDict, typ, [][]byte{v})
					}
					idx[i] = uint64(k)
				}
				dictPage = pageBytes(pageDictionary, plainDict, len(dict), opt, nil)
				w := max(bitWidth(len(dict)-1), 1)
				body = append([]byte{byte(w)}, rleRuns(idx, w)...)
				enc = encRLEDictionary
			} else {
				body = appendPlain(nil, typ, vals)
			}
			chunkStart := out.n
			if dictPage != nil {
				dictOffset = out.n
				out.write(dictPage)
			}
			dataOffset := out.n
			out.write(dataPage(def, rep, l.maxDef, maxRep, len(def), body, enc, opt))
			length := out.n - chunkStart
			groupBytes += length
			codec := int64(0)
			if opt.Snappy {
				codec = 1
			}
			var md tbuf
			md.i32(1, int64(typ))
			md.listI32(2, []int64{encPlain, encRLE, int64(enc)})
			md.listStr(3, l.path)
			md.i32(4, codec)
			md.i64(5, int64(len(def)))
			md.i64(6, length)
			md.i64(7, length)
			md.i64(9, dataOffset)
			if dictOffset >= 0 {
				md.i64(11, dictOffset)
			}
			md.stop()
			var cc tbuf
			cc.i64(2, chunkStart)
			cc.structField(3, md.b)
			cc.stop()
			cols = append(cols, cc.b...)
		}
		var rg tbuf
		rg.listStruct(1, len(leaves), cols)
		rg.i64(2, groupBytes)
		rg.i64(3, int64(len(part)))
		rg.stop()
		groups = append(groups, rg.b...)
		nGroups++
	}
	var schema []byte
	elem := func(name string, typ, rep int64, children int, logical string) {
		var e tbuf
		if typ >= 0 {
			e.i32(1, typ)
		}
		if rep >= 0 {
			e.i32(3, rep)
		}
		e.str(4, name)
		if children > 0 {
			e.i32(5, int64(children))
		}
		switch logical {
		case "UTF8":
			e.i32(6, 0)
		case "LIST":
			e.i32(6, 3)
		}
		e.stop()
		schema = append(schema, e.b...)
	}
	nElems := 1
	elem("schema", -1, -1, len(fields), "")
	for _, f := range fields {
		switch f.Kind {
		case Group:
			elem(f.Name, -1, int64(Optional), len(f.Fields), "")
			nElems++
			for _, m := range f.Fields {
				elem(m.Name, kindType(m.Kind), int64(Optional), 0, kindLogical(m.Kind))
				nElems++
			}
		case StringList, Int64List:
			elem(f.Name, -1, int64(Optional), 1, "LIST")
			elem("list", -1, int64(Repeated), 1, "")
			if f.Kind == StringList {
				elem("element", int64(ByteArray), int64(Optional), 0, "UTF8")
			} else {
				elem("element", int64(Int64), int64(Optional), 0, "")
			}
			nElems += 3
		default:
			elem(f.Name, kindType(f.Kind), int64(Optional), 0, kindLogical(f.Kind))
			nElems++
		}
	}
	var meta tbuf
	meta.i32(1, 2)
	meta.listStruct(2, nElems, schema)
	meta.i64(3, int64(len(rows)))
	meta.listStruct(4, nGroups, groups)
	meta.str(6, "mlperf-host parquet fixture writer")
	meta.stop()
	out.write(meta.b)
	out.write(binary.LittleEndian.AppendUint32(nil, uint32(len(meta.b))))
	out.write([]byte(Magic))
	return out.err
}

func kindName(k Kind) string {
	return [...]string{"string", "[]byte", "bool", "[]string", "[]any", "int64", "[]int64"}[k]
}

func kindType(k Kind) int64 {
	switch k {
	case Bool:
		return int64(Boolean)
	case Int64Kind:
		return int64(Int64)
	}
	return int64(ByteArray)
}

// listValues are the elements of a list field's value, as the bytes
// their leaf of kind stores: a []string's, or a []int64's eight bytes
// each.
func listValues(v any, kind Kind) ([][]byte, error) {
	var out [][]byte
	switch list := v.(type) {
	case []string:
		if kind != String {
			break
		}
		for _, s := range list {
			out = append(out, []byte(s))
		}
		return out, nil
	case []int64:
		if kind != Int64Kind {
			break
		}
		for _, n := range list {
			out = append(out, binary.LittleEndian.AppendUint64(nil, uint64(n)))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%T is not a %s", v, kindName(map[Kind]Kind{String: StringList, Int64Kind: Int64List}[kind]))
}

func kindLogical(k Kind) string {
	if k == String {
		return "UTF8"
	}
	return ""
}

func appendPlain(dst []byte, typ Type, vals [][]byte) []byte {
	if typ == Int64 {
		for _, v := range vals {
			dst = append(dst, v...)
		}
		return dst
	}
	if typ == Boolean {
		packed := make([]byte, (len(vals)+7)/8)
		for i, v := range vals {
			packed[i/8] |= v[0] << (i % 8)
		}
		return append(dst, packed...)
	}
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v)))
		dst = append(dst, v...)
	}
	return dst
}

// rleRuns encodes values of width w as RLE runs of equal values.
func rleRuns(vals []uint64, w int) []byte {
	var out []byte
	bw := (w + 7) / 8
	for i := 0; i < len(vals); {
		j := i
		for j < len(vals) && vals[j] == vals[i] {
			j++
		}
		out = binary.AppendUvarint(out, uint64(j-i)<<1)
		for b := range bw {
			out = append(out, byte(vals[i]>>(8*b)))
		}
		i = j
	}
	return out
}

func dataPage(def, rep []uint64, maxDef, maxRep, n int, body []byte, enc int, opt WriteOptions) []byte {
	var levels []byte
	var rl, dl int
	if maxRep > 0 {
		r := rleRuns(rep, bitWidth(maxRep))
		rl = len(r)
		if !opt.V2 {
			levels = binary.LittleEndian.AppendUint32(levels, uint32(len(r)))
		}
		levels = append(levels, r...)
	}
	d := rleRuns(def, bitWidth(maxDef))
	dl = len(d)
	if !opt.V2 {
		levels = binary.LittleEndian.AppendUint32(levels, uint32(len(d)))
	}
	levels = append(levels, d...)
	if opt.V2 {
		nulls := 0
		for _, x := range def {
			if int(x) != maxDef {
				nulls++
			}
		}
		rows := n
		if maxRep > 0 {
			rows = 0
			for _, r := range rep {
				if r == 0 {
					rows++
				}
			}
		}
		return pageBytes(pageDataV2, body, n, opt, &v2{levels: levels, rl: rl, dl: dl, nulls: nulls, rows: rows, enc: enc})
	}
	return pageBytes(pageData, append(levels, body...), n, opt, &v2{enc: enc})
}

type v2 struct {
	levels        []byte
	rl, dl, nulls int
	rows          int
	enc           int
}

// pageBytes is a page header and its (compressed) data.
func pageBytes(typ int, data []byte, n int, opt WriteOptions, d *v2) []byte {
	stored := data
	if opt.Snappy {
		stored = snappyLiteral(data)
	}
	var levels []byte
	if d != nil {
		levels = d.levels
	}
	var sub tbuf
	sub.i32(1, int64(n))
	var h tbuf
	h.i32(1, int64(typ))
	h.i32(2, int64(len(levels)+len(data)))
	h.i32(3, int64(len(levels)+len(stored)))
	switch typ {
	case pageDictionary:
		sub.i32(2, encPlain)
		sub.stop()
		h.structField(7, sub.b)
	case pageData:
		sub.i32(2, int64(d.enc))
		sub.i32(3, encRLE)
		sub.i32(4, encRLE)
		sub.stop()
		h.structField(5, sub.b)
	case pageDataV2:
		sub.i32(2, int64(d.nulls))
		sub.i32(3, int64(d.rows))
		sub.i32(4, int64(d.enc))
		sub.i32(5, int64(d.dl))
		sub.i32(6, int64(d.rl))
		sub.stop()
		h.structField(8, sub.b)
	}
	h.stop()
	return append(append(h.b, levels...), stored...)
}

// tbuf writes a Thrift compact struct.
type tbuf struct {
	b    []byte
	last int16
}

func (t *tbuf) field(id int16, typ byte) {
	if d := id - t.last; d > 0 && d < 16 {
		t.b = append(t.b, byte(d)<<4|typ)
	} else {
		t.b = append(t.b, typ)
		t.b = binary.AppendVarint(t.b, int64(id))
	}
	t.last = id
}

func (t *tbuf) i32(id int16, v int64) { t.field(id, ctI32); t.b = binary.AppendVarint(t.b, v) }
func (t *tbuf) i64(id int16, v int64) { t.field(id, ctI64); t.b = binary.AppendVarint(t.b, v) }

func (t *tbuf) str(id int16, s string) {
	t.field(id, ctBinary)
	t.b = binary.AppendUvarint(t.b, uint64(len(s)))
	t.b = append(t.b, s...)
}

func (t *tbuf) listHead(n int, typ byte) {
	if n < 15 {
		t.b = append(t.b, byte(n)<<4|typ)
		return
	}
	t.b = append(t.b, 0xf0|typ)
	t.b = binary.AppendUvarint(t.b, uint64(n))
}

func (t *tbuf) listI32(id int16, vs []int64) {
	t.field(id, ctList)
	t.listHead(len(vs), ctI32)
	for _, v := range vs {
		t.b = binary.AppendVarint(t.b, v)
	}
}

func (t *tbuf) listStr(id int16, vs []string) {
	t.field(id, ctList)
	t.listHead(len(vs), ctBinary)
	for _, v := range vs {
		t.b = binary.AppendUvarint(t.b, uint64(len(v)))
		t.b = append(t.b, v...)
	}
}

// listStruct writes a list of n structs already encoded in body.
func (t *tbuf) listStruct(id int16, n int, body []byte) {
	t.field(id, ctList)
	t.listHead(n, ctStruct)
	t.b = append(t.b, body...)
}

func (t *tbuf) structField(id int16, body []byte) {
	t.field(id, ctStruct)
	t.b = append(t.b, body...)
}

func (t *tbuf) stop() { t.b = append(t.b, ctStop) }

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
}
