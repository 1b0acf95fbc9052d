package py

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Float formats f as Python's repr does: positional from 1e-4 to 1e16
// (with ".0" when the digits are an integer), else scientific, the
// shortest digits that read back as f; nan, inf and -inf.
func Float(f float64) string { return repr(f, 64) }

// Float32 formats f as numpy's str of a float32 does: Float's rules, the
// shortest digits that read back as the float32.
func Float32(f float32) string { return repr(float64(f), 32) }

func repr(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if f != 0 && (math.Abs(f) < 1e-4 || math.Abs(f) >= 1e16) {
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	s := strconv.FormatFloat(f, 'f', -1, bits)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// IsSpace is Python's str.isspace.
func IsSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// Fields is Python's str.split() with no argument.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }
