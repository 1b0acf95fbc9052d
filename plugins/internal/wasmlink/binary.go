package wasmlink

import (
	"errors"
	"fmt"
)

// errTruncated is the cause of every "ran out of bytes" error.
var errTruncated = errors.New("truncated")

// dec reads the WASM binary format. The first error sticks: later reads
// return zero values, and err says what went wrong where.
type dec struct {
	b   []byte
	pos int
	err error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("offset %d: %s", d.pos, fmt.Sprintf(format, args...))
	}
}

func (d *dec) more() bool { return d.err == nil && d.pos < len(d.b) }

func (d *dec) u8() byte {
	if d.err != nil {
		return 0
	}
	if d.pos >= len(d.b) {
		d.err = fmt.Errorf("offset %d: %w", d.pos, errTruncated)
		return 0
	}
	c := d.b[d.pos]
	d.pos++
	return c
}

// bytes returns the next n bytes (a view of the input).
func (d *dec) bytes(n uint32) []byte {
	if d.err != nil {
		return nil
	}
	if uint64(n) > uint64(len(d.b)-d.pos) {
		d.err = fmt.Errorf("offset %d: %d bytes: %w", d.pos, n, errTruncated)
		return nil
	}
	s := d.b[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return s
}

// leb reads an unsigned LEB128 of at most maxBytes bytes.
func (d *dec) leb(maxBytes int) uint64 {
	var v uint64
	for i := range maxBytes {
		c := d.u8()
		if d.err != nil {
			return 0
		}
		if i < 10 {
			v |= uint64(c&0x7f) << (7 * i)
		}
		if c&0x80 == 0 {
			return v
		}
	}
	d.fail("LEB128 longer than %d bytes", maxBytes)
	return 0
}

func (d *dec) u32() uint32 {
	v := d.leb(5)
	if v > 0xffffffff {
		d.fail("u32 out of range")
		return 0
	}
	return uint32(v)
}

// s33 reads a signed 33-bit LEB128 (a block type).
func (d *dec) s33() int64 {
	var v int64
	var shift uint
	for range 5 {
		c := d.u8()
		if d.err != nil {
			return 0
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
	d.fail("s33 longer than 5 bytes")
	return 0
}

// name reads a length-prefixed UTF-8 string.
func (d *dec) name() string { return string(d.bytes(d.u32())) }

// count reads a vector length, bounded by the bytes left (every element
// takes at least one byte), so that a corrupt length cannot make a caller
// allocate gigabytes.
func (d *dec) count() int {
	n := d.u32()
	if d.err == nil && int(n) > len(d.b)-d.pos {
		d.fail("vector of %d elements in %d bytes", n, len(d.b)-d.pos)
		return 0
	}
	return int(n)
}

func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendS33 encodes a signed LEB128.
func appendS33(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}

// appendSection appends a section with its id and size.
func appendSection(b []byte, id byte, payload []byte) []byte {
	b = append(b, id)
	b = appendU32(b, uint32(len(payload)))
	return append(b, payload...)
}
