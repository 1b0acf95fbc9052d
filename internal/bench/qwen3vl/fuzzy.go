package qwen3vl

import (
	"strings"
	"unicode"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// BrandRatio is the brand score of evaluation.py: rapidfuzz's fuzz.ratio
// of the two brands stripped of white space and lower-cased, 100·(1 −
// indel distance / total length) over code points (100 for two empty
// strings).
func BrandRatio(pred, truth string) float64 {
	a, b := []rune(pyLower(strings.TrimFunc(pred, py.IsSpace))), []rune(pyLower(strings.TrimFunc(truth, py.IsSpace)))
	total := len(a) + len(b)
	if total == 0 {
		return 100
	}
	dist := total - 2*lcs(a, b)
	return (1 - float64(dist)/float64(total)) * 100
}

// pyLower is Python's str.lower: Unicode's lower-case mapping, with the
// one unconditional full mapping Go's simple one lacks (İ to i and a
// combining dot) and the final sigma rule (Σ after a cased letter and
// not before one, case-ignorable characters skipped, is ς).
func pyLower(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if casedAround(rs[:i], -1) && !casedAround(rs[i+1:], 1) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// casedAround says whether the first character of rs that is not case
// ignorable, looking forward (dir 1) or back from its end (-1), is cased.
func casedAround(rs []rune, dir int) bool {
	for k := range rs {
		r := rs[k]
		if dir < 0 {
			r = rs[len(rs)-1-k]
		}
		if !caseIgnorable(r) {
			return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
		}
	}
	return false
}

// caseIgnorable is Unicode's Case_Ignorable: marks, format characters,
// modifiers, and the word-internal punctuation (apostrophes, full stops,
// colons, middle dots).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027, 0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// lcs is the length of the longest common subsequence of a and b.
func lcs(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for _, x := range a {
		for j, y := range b {
			switch {
			case x == y:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
