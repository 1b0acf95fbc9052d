package loadgen

import (
	"math"
	"strconv"
)

// cFloatSpecial spells infinities and NaNs as C++ streams and printf do.
func cFloatSpecial(v float64) (string, bool) {
	switch {
	case math.IsInf(v, 1):
		return "inf", true
	case math.IsInf(v, -1):
		return "-inf", true
	case math.IsNaN(v):
		if math.Signbit(v) {
			return "-nan", true
		}
		return "nan", true
	}
	return "", false
}

// formatDouble formats v as `std::ostream << v` does with default flags:
// six significant digits, %g style. The official summary and detail logs
// print every double this way.
func formatDouble(v float64) string {
	if s, ok := cFloatSpecial(v); ok {
		return s
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// appendDouble is formatDouble appending to b.
func appendDouble(b []byte, v float64) []byte {
	if s, ok := cFloatSpecial(v); ok {
		return append(b, s...)
	}
	return strconv.AppendFloat(b, v, 'g', 6, 64)
}

// fixed is the official DoubleToString: std::fixed with the given
// precision (two decimals by default in the official code).
func fixed(v float64, precision int) string {
	if s, ok := cFloatSpecial(v); ok {
		return s
	}
	return strconv.FormatFloat(v, 'f', precision, 64)
}
