package config

import (
	"slices"
	"strings"
)

// Suggest returns the candidates close to name, closest first: the same
// but for case, or within an edit distance of about a third of the
// name's length (at least one, at most three edits).
func Suggest(name string, candidates []string) []string {
	limit := min(max(len(name)/3, 1), 3)
	type match struct {
		s string
		d int
	}
	var ms []match
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if d <= limit {
			ms = append(ms, match{c, d})
		}
	}
	slices.SortStableFunc(ms, func(a, b match) int { return a.d - b.d })
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.s
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
