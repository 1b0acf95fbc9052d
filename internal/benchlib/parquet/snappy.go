package parquet

import (
	"encoding/binary"
	"fmt"
)

// SnappyDecode decodes a block of the Snappy format (no framing), as
// Parquet's SNAPPY codec stores a page.
//
// # Errors
//
// Wraps [ErrFormat] for a block cut short, a copy before the start, or
// a length that differs from the one the block declares.
func SnappyDecode(src []byte) ([]byte, error) {
	n, k := binary.Uvarint(src)
	if k <= 0 || n > 1<<32 {
		return nil, fmt.Errorf("%w: snappy: bad length", ErrFormat)
	}
	if n > uint64(len(src))*64+64 { // a copy makes at most 64 bytes of 2
		return nil, fmt.Errorf("%w: snappy: %d bytes from %d", ErrFormat, n, len(src))
	}
	dst := make([]byte, 0, n)
	s := k
	for s < len(src) {
		tag := src[s]
		s++
		var length, offset int
		switch tag & 3 {
		case 0:
			length = int(tag >> 2)
			if length >= 60 {
				nb := length - 59
				if s+nb > len(src) {
					return nil, fmt.Errorf("%w: snappy: literal length cut short", ErrFormat)
				}
				length = 0
				for i := range nb {
					length |= int(src[s+i]) << (8 * i)
				}
				s += nb
			}
			length++
			if length > len(src)-s || length < 0 {
				return nil, fmt.Errorf("%w: snappy: literal cut short", ErrFormat)
			}
			dst = append(dst, src[s:s+length]...)
			s += length
			continue
		case 1:
			if s >= len(src) {
				return nil, fmt.Errorf("%w: snappy: copy cut short", ErrFormat)
			}
			length = 4 + int(tag>>2)&7
			offset = int(tag>>5)<<8 | int(src[s])
			s++
		case 2:
			if s+2 > len(src) {
				return nil, fmt.Errorf("%w: snappy: copy cut short", ErrFormat)
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint16(src[s:]))
			s += 2
		case 3:
			if s+4 > len(src) {
				return nil, fmt.Errorf("%w: snappy: copy cut short", ErrFormat)
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint32(src[s:]))
			s += 4
		}
		if offset <= 0 || offset > len(dst) {
			return nil, fmt.Errorf("%w: snappy: copy of offset %d at %d", ErrFormat, offset, len(dst))
		}
		if uint64(len(dst)+length) > n {
			return nil, fmt.Errorf("%w: snappy: more than the %d bytes declared", ErrFormat, n)
		}
		for range length {
			dst = append(dst, dst[len(dst)-offset])
		}
	}
	if uint64(len(dst)) != n {
		return nil, fmt.Errorf("%w: snappy: %d bytes, %d declared", ErrFormat, len(dst), n)
	}
	return dst, nil
}

// snappyLiteral encodes src as a Snappy block of literals only: valid
// Snappy that any decoder reads, without compressing.
func snappyLiteral(src []byte) []byte {
	dst := binary.AppendUvarint(nil, uint64(len(src)))
	for len(src) > 0 {
		n := min(len(src), 1<<16)
		switch m := n - 1; {
		case m < 60:
			dst = append(dst, byte(m)<<2)
		case m < 1<<8:
			dst = append(dst, 60<<2, byte(m))
		default:
			dst = append(dst, 61<<2, byte(m), byte(m>>8))
		}
		dst = append(dst, src[:n]...)
		src = src[n:]
	}
	return dst
}
