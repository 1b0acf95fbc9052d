package py

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Float formats f as Python's repr does for values from 1e-4 to 1e16.
func Float(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != 0 && (math.Abs(f) < 1e-4 || math.Abs(f) >= 1e16) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// IsSpace is Python's str.isspace.
func IsSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// Fields is Python's str.split() with no argument.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }
