package loadgen

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// The official config parser validates values with C's strtoul (base 0)
// and strtod, and reads them back with strtoull and strtod, which all
// accept a prefix of their input. These functions reproduce glibc's rules
// so that a value the official accepts is accepted here and read back as
// the same number.

func isDigitBase(c byte, base int) bool {
	switch base {
	case 8:
		return c >= '0' && c <= '7'
	case 10:
		return c >= '0' && c <= '9'
	default:
		return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
	}
}

// scanStrtoul returns the length of the prefix of s that strtoul(s, &end, 0)
// consumes, the base it chose and where its digits start; n is 0 when
// nothing converts.
func scanStrtoul(s string) (n, base, digits int) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	switch {
	case i+2 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' && isDigitBase(s[i+2], 16):
		base, i = 16, i+2
	case i < len(s) && s[i] == '0':
		base = 8
	default:
		base = 10
	}
	start := i
	for i < len(s) && isDigitBase(s[i], base) {
		i++
	}
	if i == start {
		return 0, base, start
	}
	return i, base, start
}

// strtoull returns what C's strtoull(s, nullptr, 0) returns: the value of
// the longest convertible prefix, ULLONG_MAX on overflow, and the value
// negated modulo 2^64 after a minus sign.
func strtoull(s string) uint64 {
	n, base, start := scanStrtoul(s)
	if n == 0 {
		return 0
	}
	var v uint64
	for _, c := range []byte(s[start:n]) {
		d := uint64(c - '0')
		if c > '9' {
			d = uint64(c|0x20-'a') + 10
		}
		hi, lo := bits.Mul64(v, uint64(base))
		sum, carry := bits.Add64(lo, d, 0)
		if hi != 0 || carry != 0 {
			return math.MaxUint64
		}
		v = sum
	}
	if s[0] == '-' {
		v = -v
	}
	return v
}

// scanStrtod returns the length of the prefix of s that strtod consumes.
func scanStrtod(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	rest := strings.ToLower(s[i:])
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return i + 8
	case strings.HasPrefix(rest, "inf"):
		return i + 3
	case strings.HasPrefix(rest, "nan"):
		j := i + 3
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (isDigitBase(s[k], 10) || s[k]|0x20 >= 'a' && s[k]|0x20 <= 'z' || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				return k + 1
			}
		}
		return j
	}
	base, expChar := 10, byte('e')
	if i+1 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' {
		j := i + 2
		if j < len(s) && s[j] == '.' {
			j++
		}
		if j < len(s) && isDigitBase(s[j], 16) {
			base, expChar, i = 16, 'p', i+2
		}
	}
	mantissa := 0
	for i < len(s) && isDigitBase(s[i], base) {
		i++
		mantissa++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		frac := 0
		for j < len(s) && isDigitBase(s[j], base) {
			j++
			frac++
		}
		if mantissa+frac > 0 {
			i, mantissa = j, mantissa+frac
		}
	}
	if mantissa == 0 {
		return 0
	}
	if i < len(s) && s[i]|0x20 == expChar {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigitBase(s[j], 10) {
			for j < len(s) && isDigitBase(s[j], 10) {
				j++
			}
			i = j
		}
	}
	return i
}

// strtod returns what C's strtod(s, nullptr) returns.
func strtod(s string) float64 {
	n := scanStrtod(s)
	if n == 0 {
		return 0
	}
	p := s[:n]
	lower := strings.ToLower(p)
	if strings.Contains(lower, "nan") {
		v := math.NaN()
		if p[0] == '-' {
			v = math.Copysign(v, -1)
		}
		return v
	}
	if strings.Contains(lower, "0x") && !strings.Contains(lower, "p") {
		p += "p0"
	}
	v, err := strconv.ParseFloat(p, 64)
	if err != nil && !math.IsInf(v, 0) && v != 0 {
		return 0
	}
	return v
}

// acceptedValue reports whether the official parser stores s as a value:
// all of it must convert with strtoul or with strtod.
func acceptedValue(s string) bool {
	if n, _, _ := scanStrtoul(s); n == len(s) && n > 0 {
		return true
	}
	n := scanStrtod(s)
	return n == len(s) && n > 0
}
