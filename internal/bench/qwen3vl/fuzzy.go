package qwen3vl

import (
	"strings"

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
// one full mapping Go's simple one lacks for a capital letter (İ to i
// and a combining dot).
func pyLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
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
