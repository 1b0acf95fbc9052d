package loadgen

import (
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// value renders a log value. detail is true in the detail log, where
// strings are quoted and booleans spelled true/false; in the summary,
// strings are bare and booleans print as the stream prints them (0 or 1).
type value func(b []byte, detail bool) []byte

func vString(s string) value {
	return func(b []byte, detail bool) []byte {
		if detail {
			return appendJSONString(b, s)
		}
		return append(b, s...)
	}
}

func vInt(n int64) value {
	return func(b []byte, _ bool) []byte { return strconv.AppendInt(b, n, 10) }
}

func vUint(n uint64) value {
	return func(b []byte, _ bool) []byte { return strconv.AppendUint(b, n, 10) }
}

func vDouble(f float64) value {
	return func(b []byte, detail bool) []byte {
		if _, special := cFloatSpecial(f); special && detail {
			// JSON has no NaN or infinity (a rate of a run that completed
			// nothing): the detail log says null, the summary as C++ does.
			return append(b, "null"...)
		}
		return appendDouble(b, f)
	}
}

func vBool(v bool) value {
	return func(b []byte, detail bool) []byte {
		if detail {
			return strconv.AppendBool(b, v)
		}
		if v {
			return append(b, '1')
		}
		return append(b, '0')
	}
}

// vList is the official vector<size_t> transform: [a,b,c].
func vList(v []uint64) value {
	return func(b []byte, _ bool) []byte {
		b = append(b, '[')
		for i, n := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, n, 10)
		}
		return append(b, ']')
	}
}

// vDict is the official map<string, string> transform: {"k":"v",...} in
// key order.
func vDict(m map[string]string) value {
	return func(b []byte, _ bool) []byte {
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(m)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, m[k])
		}
		return append(b, '}')
	}
}

// appendJSONString quotes s. The official logger quotes without escaping;
// for the strings it writes (names, messages) the output is the same, and
// escaping keeps the line valid JSON whatever a SUT calls itself.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(b, '"')
}
