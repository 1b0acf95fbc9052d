package wire

import (
	"bytes"
	"errors"
	"fmt"
)

// MaxHead bounds a response head: a longer one is an error, not a bigger
// buffer.
const MaxHead = 64 << 10

// ErrMalformed is wrapped by every error about bytes that break HTTP,
// chunked coding, SSE or JSON.
var ErrMalformed = errors.New("malformed response")

// Head is what the client reads of a response head.
type Head struct {
	// Status is the status code, e.g. 200.
	Status int
	// ContentLength is the body's length, -1 when the head gives none.
	ContentLength int64
	// Chunked: the body is in chunked transfer coding.
	Chunked bool
	// Close: the server closes the connection after this response.
	Close bool
	// EventStream: the body is text/event-stream (SSE).
	EventStream bool
}

// HeadEnd returns the length of the head at the start of b, its blank
// line included, or -1 when b does not hold all of it yet.
func HeadEnd(b []byte) int {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		line := b[i : i+j]
		i += j + 1
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			if i > 2 { // the status line comes first
				return i
			}
		}
	}
	return -1
}

// ParseHead parses a response head: the status line and the header
// fields, up to and including the blank line ([HeadEnd]). Lines may end
// in CRLF or LF. Only the fields the client needs are read.
func ParseHead(b []byte) (Head, error) {
	h := Head{ContentLength: -1}
	line, rest, ok := cutLine(b)
	if !ok {
		return h, fmt.Errorf("%w: no status line", ErrMalformed)
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.")) || len(line) < 12 || line[8] != ' ' {
		return h, fmt.Errorf("%w: status line %q", ErrMalformed, clip(line))
	}
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return h, fmt.Errorf("%w: status line %q", ErrMalformed, clip(line))
		}
		h.Status = h.Status*10 + int(c-'0')
	}
	if len(line) > 12 && line[12] != ' ' {
		return h, fmt.Errorf("%w: status line %q", ErrMalformed, clip(line))
	}
	if line[7] == '0' {
		h.Close = true // HTTP/1.0 closes unless told otherwise
	}
	for {
		line, rest, ok = cutLine(rest)
		if !ok {
			return h, fmt.Errorf("%w: head not terminated", ErrMalformed)
		}
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return h, fmt.Errorf("%w: header line %q", ErrMalformed, clip(line))
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("content-length")):
			n, err := parseDecimal(value)
			if err != nil || (h.ContentLength >= 0 && h.ContentLength != n) {
				return h, fmt.Errorf("%w: content-length %q", ErrMalformed, clip(value))
			}
			h.ContentLength = n
		case bytes.EqualFold(name, []byte("transfer-encoding")):
			last := value
			if i := bytes.LastIndexByte(value, ','); i >= 0 {
				last = bytes.TrimSpace(value[i+1:])
			}
			if !bytes.EqualFold(last, []byte("chunked")) {
				return h, fmt.Errorf("%w: transfer-encoding %q", ErrMalformed, clip(value))
			}
			h.Chunked = true
		case bytes.EqualFold(name, []byte("connection")):
			if containsTokenFold(value, "close") {
				h.Close = true
			} else if containsTokenFold(value, "keep-alive") {
				h.Close = false
			}
		case bytes.EqualFold(name, []byte("content-type")):
			h.EventStream = hasPrefixFold(value, "text/event-stream")
		}
	}
	if h.Chunked {
		h.ContentLength = -1 // RFC 9112 6.3: chunked wins
	}
	return h, nil
}

// cutLine splits b after its first line, dropping the line's CR LF or LF.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, b, false
	}
	line, rest = b[:i], b[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest, true
}

func parseDecimal(b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 18 {
		return 0, ErrMalformed
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, ErrMalformed
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

func containsTokenFold(v []byte, tok string) bool {
	for part := range bytes.SplitSeq(v, []byte(",")) {
		if bytes.EqualFold(bytes.TrimSpace(part), []byte(tok)) {
			return true
		}
	}
	return false
}

func hasPrefixFold(v []byte, p string) bool {
	return len(v) >= len(p) && bytes.EqualFold(v[:len(p)], []byte(p))
}

// clip shortens what an error message quotes.
func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
