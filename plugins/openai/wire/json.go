package wire

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting the JSON reader walks through.
const maxDepth = 64

// Field returns the raw value of key in the JSON object obj (its first
// occurrence), ok false when obj is an object without it or is not an
// object. The value is a part of obj: no copy.
func Field(obj []byte, key string) (val []byte, ok bool, err error) {
	var v [1][]byte
	keys := [1]string{key}
	if err := Fields(obj, keys[:], v[:]); err != nil {
		return nil, false, err
	}
	return v[0], v[0] != nil, nil
}

// Fields reads several keys of the JSON object obj in one pass: vals[k]
// gets the raw value of keys[k]'s first occurrence, a part of obj, or
// nil when obj has no such key or is not an object. The scan stops
// once every key is found.
func Fields(obj []byte, keys []string, vals [][]byte) error {
	clear(vals)
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i = skipWS(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	left := len(keys)
	for {
		if i >= len(obj) || obj[i] != '"' {
			return malformedJSON(obj, i)
		}
		kEnd, escaped, err := scanString(obj, i)
		if err != nil {
			return err
		}
		name := obj[i+1 : kEnd-1]
		if escaped {
			var buf [64]byte
			if name, err = AppendString(buf[:0], obj[i:kEnd]); err != nil {
				return err
			}
		}
		match := -1
		for k, key := range keys {
			if vals[k] == nil && string(name) == key {
				match = k
				break
			}
		}
		i = skipWS(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return malformedJSON(obj, i)
		}
		vStart := skipWS(obj, i+1)
		vEnd, err := skipValue(obj, vStart, 0)
		if err != nil {
			return err
		}
		if match >= 0 {
			vals[match] = obj[vStart:vEnd]
			if left--; left == 0 {
				return nil
			}
		}
		i = skipWS(obj, vEnd)
		if i >= len(obj) {
			return malformedJSON(obj, i)
		}
		switch obj[i] {
		case ',':
			i = skipWS(obj, i+1)
		case '}':
			return nil
		default:
			return malformedJSON(obj, i)
		}
	}
}

// Path follows keys through nested objects: Path(b, "usage",
// "completion_tokens").
func Path(b []byte, keys ...string) (val []byte, ok bool, err error) {
	val = b
	for _, k := range keys {
		if val, ok, err = Field(val, k); !ok || err != nil {
			return nil, false, err
		}
	}
	return val, true, nil
}

// Index returns the raw n-th element of the JSON array arr, ok false
// when arr is shorter or not an array.
func Index(arr []byte, n int) (val []byte, ok bool, err error) {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return nil, false, nil
	}
	i = skipWS(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return nil, false, nil
	}
	for k := 0; ; k++ {
		end, err := skipValue(arr, i, 0)
		if err != nil {
			return nil, false, err
		}
		if k == n {
			return arr[i:end], true, nil
		}
		i = skipWS(arr, end)
		if i >= len(arr) {
			return nil, false, malformedJSON(arr, i)
		}
		switch arr[i] {
		case ',':
			i = skipWS(arr, i+1)
		case ']':
			return nil, false, nil
		default:
			return nil, false, malformedJSON(arr, i)
		}
	}
}

// IsNull reports whether raw is the JSON null.
func IsNull(raw []byte) bool { return string(raw) == "null" }

// AppendString appends the text of the JSON string raw to dst, escapes
// decoded (a lone surrogate becomes U+FFFD, as encoding/json does).
func AppendString(dst, raw []byte) ([]byte, error) {
	end, _, err := scanString(raw, 0)
	if err != nil {
		return dst, err
	}
	if end != len(raw) {
		return dst, malformedJSON(raw, end)
	}
	s := raw[1 : end-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		e := s[i+1] // scanString checked that an escape is whole
		i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i:])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = hex4(s[i+2:])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst, nil
}

// AppendInts appends the elements of raw, a JSON array of integers that
// fit int32 (token ids), to dst.
func AppendInts(dst []int32, raw []byte) ([]int32, error) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return dst, fmt.Errorf("%w: not an array of integers", ErrMalformed)
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return dst, nil
	}
	for {
		j := i
		for j < len(raw) && (raw[j] >= '0' && raw[j] <= '9' || raw[j] == '-') {
			j++
		}
		v, err := Int(raw[i:j])
		if err != nil || v < -1<<31 || v > 1<<31-1 {
			return dst, fmt.Errorf("%w: not an array of int32 values", ErrMalformed)
		}
		dst = append(dst, int32(v))
		i = skipWS(raw, j)
		if i >= len(raw) {
			return dst, malformedJSON(raw, i)
		}
		switch raw[i] {
		case ',':
			i = skipWS(raw, i+1)
		case ']':
			return dst, nil
		default:
			return dst, malformedJSON(raw, i)
		}
	}
}

// Int reads a JSON integer (no fraction or exponent) of at most 18
// digits.
func Int(raw []byte) (int64, error) {
	neg := len(raw) > 0 && raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	n, err := parseDecimal(raw)
	if err != nil {
		return 0, fmt.Errorf("%w: not an integer", ErrMalformed)
	}
	if neg {
		n = -n
	}
	return n, nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string starting at b[i] and
// whether it has escapes.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	if i >= len(b) || b[i] != '"' {
		return 0, false, malformedJSON(b, i)
	}
	for j := i + 1; j < len(b); j++ {
		for j < len(b) && !stringStop[b[j]] { // the common bytes, in a tight loop
			j++
		}
		if j >= len(b) {
			break
		}
		switch b[j] {
		case '"':
			return j + 1, escaped, nil
		case '\\':
			escaped = true
			if j+1 >= len(b) {
				return 0, false, malformedJSON(b, j)
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if j+6 > len(b) || hex4(b[j+2:]) < 0 {
					return 0, false, malformedJSON(b, j)
				}
				j += 5
			default:
				return 0, false, malformedJSON(b, j)
			}
		default: // a control character
			return 0, false, malformedJSON(b, j)
		}
	}
	return 0, false, malformedJSON(b, len(b))
}

// stringStop marks the bytes that end a run of plain string bytes: the
// quote, the backslash and the control characters.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// hex4 reads four hex digits, -1 when they are not.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		v := hexVal(c)
		if v < 0 {
			return -1
		}
		r = r<<4 | rune(v)
	}
	return r
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, malformedJSON(b, i)
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := scanString(b, i)
		return end, err
	case c == '{' || c == '[':
		if depth == maxDepth {
			return 0, fmt.Errorf("%w: JSON nested deeper than %d", ErrMalformed, maxDepth)
		}
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == closing {
			return i + 1, nil
		}
		for {
			if c == '{' {
				end, _, err := scanString(b, i)
				if err != nil {
					return 0, err
				}
				i = skipWS(b, end)
				if i >= len(b) || b[i] != ':' {
					return 0, malformedJSON(b, i)
				}
				i = skipWS(b, i+1)
			}
			end, err := skipValue(b, i, depth+1)
			if err != nil {
				return 0, err
			}
			i = skipWS(b, end)
			if i >= len(b) {
				return 0, malformedJSON(b, i)
			}
			if b[i] == closing {
				return i + 1, nil
			}
			if b[i] != ',' {
				return 0, malformedJSON(b, i)
			}
			i = skipWS(b, i+1)
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
			j++
		}
		return j, nil
	}
	return 0, malformedJSON(b, i)
}

func literal(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, malformedJSON(b, i)
	}
	return i + len(lit), nil
}

func malformedJSON(b []byte, i int) error {
	if i >= len(b) {
		return fmt.Errorf("%w: JSON ends early", ErrMalformed)
	}
	return fmt.Errorf("%w: JSON byte %q at %d", ErrMalformed, b[i], i)
}
