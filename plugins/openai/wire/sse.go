package wire

import (
	"bytes"
	"fmt"
)

// MaxFrame bounds one SSE frame's data and any one line of the stream.
const MaxFrame = 16 << 20

// SSE scans a text/event-stream body (the WHATWG HTML "server-sent
// events" format) fed in pieces of any size, and hands out each frame's
// data: its data lines joined by LF. Lines end in CRLF, LF or CR;
// comments, other fields and frames without data are skipped. The zero
// value is ready.
type SSE struct {
	line   []byte // a line split between pieces
	data   []byte // the current frame's data, copied
	cur    []byte // the current frame's one data line, in the caller's piece
	inCur  bool   // cur holds the frame's data
	has    bool   // the current frame has a data field
	skipLF bool   // the last piece ended in CR
}

// Feed scans p and calls emit with the data of every frame that ends in
// it, in order. The slice emit gets is valid only during the call. An
// error from emit stops the scan and is returned.
func (s *SSE) Feed(p []byte, emit func(data []byte) error) error {
	for len(p) > 0 {
		if s.skipLF {
			s.skipLF = false
			if p[0] == '\n' {
				p = p[1:]
				continue
			}
		}
		i := lineEnd(p)
		if i < 0 {
			if len(s.line)+len(p) > MaxFrame {
				return fmt.Errorf("%w: SSE line longer than %d bytes", ErrMalformed, MaxFrame)
			}
			s.line = append(s.line, p...)
			break
		}
		line, stable := p[:i], true
		if len(s.line) > 0 {
			if len(s.line)+i > MaxFrame {
				return fmt.Errorf("%w: SSE line longer than %d bytes", ErrMalformed, MaxFrame)
			}
			s.line = append(s.line, p[:i]...)
			line, stable = s.line, false
		}
		if p[i] == '\r' {
			if i+1 < len(p) {
				if p[i+1] == '\n' {
					i++
				}
			} else {
				s.skipLF = true
			}
		}
		p = p[i+1:]
		err := s.lineDone(line, stable, emit)
		s.line = s.line[:0]
		if err != nil {
			return err
		}
	}
	s.keep()
	return nil
}

// lineEnd is the index of the first CR or LF in p, -1 when none: two
// vectorised byte searches, faster than a search for either byte.
func lineEnd(p []byte) int {
	lf := bytes.IndexByte(p, '\n')
	upTo := p
	if lf >= 0 {
		upTo = p[:lf]
	}
	if cr := bytes.IndexByte(upTo, '\r'); cr >= 0 {
		return cr
	}
	return lf
}

// lineDone handles one whole line; stable says it lies in the caller's
// piece (valid until Feed returns), not in s.line.
func (s *SSE) lineDone(line []byte, stable bool, emit func([]byte) error) error {
	if len(line) == 0 {
		if !s.has {
			return nil
		}
		d := s.data
		if s.inCur {
			d = s.cur
		}
		s.has, s.inCur, s.cur, s.data = false, false, nil, s.data[:0]
		return emit(d)
	}
	if line[0] == ':' {
		return nil // a comment
	}
	name, value := line, []byte(nil)
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		name, value = line[:c], line[c+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	if string(name) != "data" {
		return nil
	}
	switch {
	case !s.has && stable:
		s.cur, s.inCur = value, true
	case !s.has:
		s.data = append(s.data[:0], value...)
	default:
		s.keep()
		if len(s.data)+1+len(value) > MaxFrame {
			return fmt.Errorf("%w: SSE frame longer than %d bytes", ErrMalformed, MaxFrame)
		}
		s.data = append(append(s.data, '\n'), value...)
	}
	s.has = true
	return nil
}

// keep copies a data line still in the caller's piece before Feed
// returns or another line joins it.
func (s *SSE) keep() {
	if s.inCur {
		s.data = append(s.data[:0], s.cur...)
		s.cur, s.inCur = nil, false
	}
}

// Reset readies s for another stream, keeping its buffers.
func (s *SSE) Reset() {
	*s = SSE{line: s.line[:0], data: s.data[:0]}
}

// Pending reports whether a frame or line was begun and not ended: a
// stream that stops there was cut short.
func (s *SSE) Pending() bool { return s.has || len(s.line) > 0 }
