package pickle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// Column is a DataFrame column for [Writer.Frame]: its name and cells.
type Column struct {
	Name string
	// Cells are all int64 (an int64 block), all float64 (a float64
	// block), or strings, []int32 and []int64 token lists (Python lists),
	// int64s, nil (None) and numpy arrays ([*Array] of []byte data, as
	// [Int64Array] makes one) (an object block).
	Cells []any
}

// Frame appends a pandas DataFrame of the columns and a RangeIndex, as
// pandas 1.5's DataFrame.__reduce__ makes it: a block manager of one
// block per column, a column index and a row index.
//
// # Errors
//
// Columns of different lengths, or a cell of another type.
func (p *Writer) Frame(cols []Column) error {
	rows := 0
	if len(cols) > 0 {
		rows = len(cols[0].Cells)
	}
	blocks := &Writer{}
	for i, c := range cols {
		if len(c.Cells) != rows {
			return fmt.Errorf("column %q has %d cells, column %q %d", c.Name, len(c.Cells), cols[0].Name, rows)
		}
		blocks.Global("pandas._libs.internals", "_unpickle_block")
		if err := blocks.columnValues(c); err != nil {
			return err
		}
		blocks.Global("builtins", "slice")
		blocks.Int(i)
		blocks.Int(i + 1)
		blocks.Int(1)
		blocks.Op(0x87, 'R') // TUPLE3, REDUCE
		blocks.Int(2)
		blocks.Op(0x87, 'R')
	}
	p.Global("pandas.core.frame", "DataFrame")
	p.Op(')', 0x81, '}', '(') // EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, MARK
	p.Str("_mgr")
	p.Global("pandas.core.internals.managers", "BlockManager")
	p.Op('(')
	p.b = append(p.b, blocks.b...)
	p.Op('t', ']', '(')
	p.Global("pandas.core.indexes.base", "_new_Index")
	p.Global("pandas.core.indexes.base", "Index")
	p.Op('}', '(')
	p.Str("data")
	names := make([]any, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	if err := p.objectArray([]int{len(cols)}, names); err != nil {
		return err
	}
	p.Str("name")
	p.Op('N', 'u', 0x86, 'R') // SETITEMS, TUPLE2, REDUCE
	p.Global("pandas.core.indexes.base", "_new_Index")
	p.Global("pandas.core.indexes.range", "RangeIndex")
	p.Op('}', '(')
	p.Str("name")
	p.Op('N')
	p.Str("start")
	p.Int(0)
	p.Str("stop")
	p.Int(rows)
	p.Str("step")
	p.Int(1)
	p.Op('u', 0x86, 'R')
	p.Op('e', 0x86, 'R') // the axes; BlockManager(blocks, axes)
	p.Str("_typ")
	p.Str("dataframe")
	p.Str("_metadata")
	p.Op(']')
	p.Str("attrs")
	p.Op('}')
	p.Str("_flags")
	p.Op('}')
	p.Str("allows_duplicate_labels")
	p.Op(0x88, 's', 'u', 'b') // True, SETITEM, SETITEMS, BUILD
	return nil
}

// columnValues appends a column's block values, of shape (1, rows).
func (p *Writer) columnValues(c Column) error {
	shape := []int{1, len(c.Cells)}
	allOf := func(ok func(any) bool) bool {
		for _, v := range c.Cells {
			if !ok(v) {
				return false
			}
		}
		return len(c.Cells) > 0
	}
	switch {
	case allOf(func(v any) bool { _, ok := v.(int64); return ok }):
		b := make([]byte, 0, 8*len(c.Cells))
		for _, v := range c.Cells {
			b = binary.LittleEndian.AppendUint64(b, uint64(v.(int64)))
		}
		p.Array("<i8", shape, b)
	case allOf(func(v any) bool { _, ok := v.(float64); return ok }):
		b := make([]byte, 0, 8*len(c.Cells))
		for _, v := range c.Cells {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.(float64)))
		}
		p.Array("<f8", shape, b)
	default:
		if err := p.objectArray(shape, c.Cells); err != nil {
			return fmt.Errorf("column %q: %w", c.Name, err)
		}
	}
	return nil
}

// objectArray appends a numpy object array.
func (p *Writer) objectArray(shape []int, cells []any) error {
	p.arrayHead(shape, "O8", "|", 63)
	p.Op(']', '(') // the items
	for i, v := range cells {
		switch x := v.(type) {
		case string:
			p.Str(x)
		case int64:
			p.Int64(x)
		case []int32:
			p.Op(']', '(')
			for _, t := range x {
				p.Int(int(t))
			}
			p.Op('e')
		case []int64:
			p.Op(']', '(')
			for _, t := range x {
				p.Int64(t)
			}
			p.Op('e')
		case nil:
			p.Op('N')
		case *Array:
			data, ok := x.Data.([]byte)
			if !ok {
				return fmt.Errorf("cell %d: a numpy array of %T data is not written", i, x.Data)
			}
			p.Array(x.DType.Descr(), x.Shape, data)
		default:
			return fmt.Errorf("cell %d: a %T is not written", i, v)
		}
	}
	p.Op('e', 't', 'b')
	return nil
}

// Int64Array is a numpy int64 vector of v, an object cell for
// [Writer.Frame] (a token-id array, as the gpt-oss-120b reference's).
func Int64Array(v []int64) *Array {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return &Array{DType: DType{Code: "i8", Order: '<'}, Shape: []int{len(v)}, Data: b}
}

// WriteFrameFile writes a DataFrame of the columns ([Writer.Frame]) to
// path.
func WriteFrameFile(path string, cols []Column) error {
	var p Writer
	if err := p.Frame(cols); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var buf bytes.Buffer
	if err := p.Encode(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
