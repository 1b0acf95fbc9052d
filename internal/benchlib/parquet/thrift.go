package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// errShort is a Thrift structure cut short.
var errShort = errors.New("thrift: structure cut short")

// maxDepth bounds the nesting of Thrift structures and lists, which
// Parquet's metadata keeps under ten.
const maxDepth = 32

// tstruct is a decoded Thrift struct: its fields by id. Values are
// int64 (the integer types), bool, float64, []byte, []any (lists, sets)
// or tstruct; maps are skipped.
type tstruct map[int16]any

// compact decodes Thrift's compact protocol from a byte slice.
type compact struct {
	b   []byte
	off int
}

func (c *compact) byte() (byte, error) {
	if c.off >= len(c.b) {
		return 0, errShort
	}
	v := c.b[c.off]
	c.off++
	return v, nil
}

func (c *compact) uvarint() (uint64, error) {
	v, n := binary.Uvarint(c.b[c.off:])
	if n <= 0 {
		return 0, errShort
	}
	c.off += n
	return v, nil
}

func (c *compact) varint() (int64, error) {
	u, err := c.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// The compact protocol's type codes.
const (
	ctStop   = 0
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
)

// readStruct reads a struct up to its stop field.
func (c *compact) readStruct(depth int) (tstruct, error) {
	if depth > maxDepth {
		return nil, errors.New("thrift: structures nested too deep")
	}
	out := tstruct{}
	var last int16
	for {
		h, err := c.byte()
		if err != nil {
			return nil, err
		}
		if h == ctStop {
			return out, nil
		}
		typ := h & 0x0f
		id := last + int16(h>>4)
		if h>>4 == 0 {
			v, err := c.varint()
			if err != nil {
				return nil, err
			}
			id = int16(v)
		}
		last = id
		var v any
		switch typ {
		case ctTrue:
			v = true
		case ctFalse:
			v = false
		default:
			if v, err = c.value(typ, depth); err != nil {
				return nil, err
			}
		}
		out[id] = v
	}
}

// value reads one value of type typ (not a struct field's boolean).
func (c *compact) value(typ byte, depth int) (any, error) {
	switch typ {
	case ctTrue, ctFalse: // a list element: one byte
		b, err := c.byte()
		return b == ctTrue, err
	case ctByte:
		b, err := c.byte()
		return int64(int8(b)), err
	case ctI16, ctI32, ctI64:
		return c.varint()
	case ctDouble:
		if c.off+8 > len(c.b) {
			return nil, errShort
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(c.b[c.off:]))
		c.off += 8
		return v, nil
	case ctBinary:
		n, err := c.uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(c.b)-c.off) {
			return nil, errShort
		}
		v := c.b[c.off : c.off+int(n)]
		c.off += int(n)
		return v, nil
	case ctList, ctSet:
		return c.list(depth + 1)
	case ctMap:
		return nil, c.skipMap(depth + 1)
	case ctStruct:
		return c.readStruct(depth + 1)
	}
	return nil, fmt.Errorf("thrift: unknown type %d", typ)
}

func (c *compact) list(depth int) ([]any, error) {
	if depth > maxDepth {
		return nil, errors.New("thrift: lists nested too deep")
	}
	h, err := c.byte()
	if err != nil {
		return nil, err
	}
	n := uint64(h >> 4)
	if n == 15 {
		if n, err = c.uvarint(); err != nil {
			return nil, err
		}
	}
	if n > uint64(len(c.b)-c.off) { // every element takes a byte at least
		return nil, errShort
	}
	out := make([]any, 0, n)
	for range n {
		v, err := c.value(h&0x0f, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (c *compact) skipMap(depth int) error {
	n, err := c.uvarint()
	if err != nil || n == 0 {
		return err
	}
	if n > uint64(len(c.b)-c.off) {
		return errShort
	}
	kv, err := c.byte()
	if err != nil {
		return err
	}
	for range n {
		if _, err := c.value(kv>>4, depth); err != nil {
			return err
		}
		if _, err := c.value(kv&0x0f, depth); err != nil {
			return err
		}
	}
	return nil
}

// Field accessors: the zero value when the field is absent or of
// another type.

func (s tstruct) int(id int16) int64 {
	v, _ := s[id].(int64)
	return v
}

func (s tstruct) has(id int16) bool { _, ok := s[id]; return ok }

func (s tstruct) str(id int16) string {
	v, _ := s[id].([]byte)
	return string(v)
}

func (s tstruct) boolean(id int16, def bool) bool {
	v, ok := s[id].(bool)
	if !ok {
		return def
	}
	return v
}

func (s tstruct) sub(id int16) tstruct {
	v, _ := s[id].(tstruct)
	return v
}

func (s tstruct) list(id int16) []any {
	v, _ := s[id].([]any)
	return v
}
