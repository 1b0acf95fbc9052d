package wire

import "fmt"

// Chunked decodes chunked transfer coding (RFC 9112 7.1) as it arrives,
// in pieces of any size: [Chunked.Next] returns the payload bytes of one
// piece in place, never copying them. The zero value is ready.
type Chunked struct {
	state     chunkState
	remaining int64 // payload bytes left in the current chunk
	digits    int   // hex digits read of the current size
	done      bool
}

type chunkState uint8

const (
	chunkSize        chunkState = iota // reading the size's hex digits
	chunkExt                           // skipping a chunk extension up to LF
	chunkSizeLF                        // after the size's CR
	chunkData                          // payload
	chunkDataCR                        // the CR after the payload
	chunkDataLF                        // the LF after the payload
	chunkTrailer                       // at the start of a trailer line
	chunkTrailerLine                   // inside a trailer line
	chunkTrailerLF                     // after a blank trailer line's CR
)

// maxChunkDigits bounds a chunk size: 15 hex digits is under 2^60.
const maxChunkDigits = 15

// Done reports whether the last chunk and the trailer have been read.
func (c *Chunked) Done() bool { return c.done }

// Next decodes from in. It returns payload, a part of in (possibly
// empty), and n, how many bytes of in it used; call it again with
// in[n:] until it uses all of in or Done. Bytes after the end of the
// body are not used.
func (c *Chunked) Next(in []byte) (payload []byte, n int, err error) {
	for n < len(in) && !c.done {
		b := in[n]
		switch c.state {
		case chunkSize:
			switch v := hexVal(b); {
			case v >= 0:
				if c.digits == maxChunkDigits {
					return nil, n, fmt.Errorf("%w: chunk size too large", ErrMalformed)
				}
				c.remaining = c.remaining<<4 | int64(v)
				c.digits++
			case c.digits == 0:
				return nil, n, fmt.Errorf("%w: chunk size byte %q", ErrMalformed, b)
			case b == '\r':
				c.state = chunkSizeLF
			case b == '\n':
				c.endSize()
			case b == ';' || b == ' ' || b == '\t':
				c.state = chunkExt
			default:
				return nil, n, fmt.Errorf("%w: chunk size byte %q", ErrMalformed, b)
			}
			n++
		case chunkExt:
			if b == '\n' {
				c.endSize()
			}
			n++
		case chunkSizeLF:
			if b != '\n' {
				return nil, n, fmt.Errorf("%w: chunk size line ends in %q", ErrMalformed, b)
			}
			c.endSize()
			n++
		case chunkData:
			take := int64(len(in) - n)
			if take > c.remaining {
				take = c.remaining
			}
			payload = in[n : n+int(take)]
			n += int(take)
			c.remaining -= take
			if c.remaining == 0 {
				c.state = chunkDataCR
			}
			return payload, n, nil
		case chunkDataCR:
			switch b {
			case '\r':
				c.state = chunkDataLF
			case '\n':
				c.state = chunkSize
			default:
				return nil, n, fmt.Errorf("%w: chunk data not followed by CRLF", ErrMalformed)
			}
			n++
		case chunkDataLF:
			if b != '\n' {
				return nil, n, fmt.Errorf("%w: chunk data not followed by CRLF", ErrMalformed)
			}
			c.state = chunkSize
			n++
		case chunkTrailer:
			switch b {
			case '\r':
				c.state = chunkTrailerLF
			case '\n':
				c.done = true
			default:
				c.state = chunkTrailerLine
			}
			n++
		case chunkTrailerLine:
			if b == '\n' {
				c.state = chunkTrailer
			}
			n++
		case chunkTrailerLF:
			if b != '\n' {
				return nil, n, fmt.Errorf("%w: trailer line ends in %q", ErrMalformed, b)
			}
			c.done = true
			n++
		}
	}
	return nil, n, nil
}

// endSize starts the chunk whose size was read: the data, or the trailer
// after the last chunk.
func (c *Chunked) endSize() {
	c.digits = 0
	if c.remaining == 0 {
		c.state = chunkTrailer
		return
	}
	c.state = chunkData
}

func hexVal(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b >= 'a' && b <= 'f':
		return int(b-'a') + 10
	case b >= 'A' && b <= 'F':
		return int(b-'A') + 10
	}
	return -1
}
