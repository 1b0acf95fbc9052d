package wasmguard

import (
	"errors"
	"fmt"
)

// errShort is the cause of every "ran out of bytes" error.
var errShort = errors.New("unexpected end")

// reader decodes the WASM binary format.
type reader struct {
	b   []byte
	off int
}

func (r *reader) done() bool { return r.off >= len(r.b) }

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errShort
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *reader) skip(n int) error {
	if n < 0 || n > len(r.b)-r.off {
		return errShort
	}
	r.off += n
	return nil
}

// leb reads an LEB128 number of at most maxBytes bytes and returns its
// unsigned value; signed callers only skip it.
func (r *reader) leb(maxBytes int) (uint64, error) {
	var v uint64
	for i := 0; i < maxBytes; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if i < 10 {
			v |= uint64(c&0x7f) << (7 * i)
		}
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("LEB128 longer than %d bytes at offset %d", maxBytes, r.off)
}

func (r *reader) u32() (uint32, error) {
	v, err := r.leb(5)
	if err != nil {
		return 0, err
	}
	if v > 0xffffffff {
		return 0, fmt.Errorf("u32 overflows at offset %d", r.off)
	}
	return uint32(v), nil
}

// count reads a vector length and checks it against the bytes left, each
// element taking at least one byte.
func (r *reader) count() (int, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if int(n) > len(r.b)-r.off {
		return 0, fmt.Errorf("vector of %d elements in %d bytes", n, len(r.b)-r.off)
	}
	return int(n), nil
}

func (r *reader) name() error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	return r.skip(int(n))
}

// appendU32 appends v as unsigned LEB128.
func appendU32(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// appendS32 appends v as signed LEB128.
func appendS32(dst []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(dst, c)
		}
		dst = append(dst, c|0x80)
	}
}

// appendVec appends a vector of count elements whose encodings are body.
func appendVec(dst []byte, count int, body []byte) []byte {
	return append(appendU32(dst, uint32(count)), body...)
}
