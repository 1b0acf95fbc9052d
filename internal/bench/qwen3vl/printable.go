package qwen3vl

import "unicode"

// pyPrintable is Python's str.isprintable for one character: not in the
// Unicode categories Cc, Cf, Cs, Co, Cn, Zl, Zp, nor a space separator
// other than the ASCII space.
func pyPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	switch {
	case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs):
		return false
	case !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S):
		return false // unassigned (Cn)
	}
	return true
}
