package rouge

import (
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/punkt"
)

// Tokens is rouge_score's tokenize with the Porter stemmer: lower
// case (Python's: "İ" lowers to an i and a combining dot), every run of
// characters other than a-z and 0-9 a separator, tokens of more than
// three characters stemmed.
func Tokens(text string) []string {
	text = punkt.PyLower(text)
	toks := strings.FieldsFunc(text, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') })
	for i, t := range toks {
		if len(t) > 3 {
			toks[i] = porterStem(t)
		}
	}
	return toks
}

// f is rouge_score's fmeasure of a precision and a recall.
func f(p, r float64) float64 {
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}

// N is rouge_score's _score_ngrams: the F-measure of the n-grams
// shared (counted with multiplicity) by target and prediction.
func N(target, pred []string, n int) float64 {
	count := func(toks []string) (map[string]int, int) {
		m := map[string]int{}
		total := 0
		for i := 0; i+n <= len(toks); i++ {
			m[strings.Join(toks[i:i+n], " ")]++
			total++
		}
		return m, total
	}
	tc, tn := count(target)
	pc, pn := count(pred)
	shared := 0
	for g, c := range tc {
		shared += min(c, pc[g])
	}
	return f(float64(shared)/float64(max(pn, 1)), float64(shared)/float64(max(tn, 1)))
}

// L is rouge_score's _score_lcs: the F-measure of the longest
// common subsequence's length over the prediction's and the target's.
func L(target, pred []string) float64 {
	if len(target) == 0 || len(pred) == 0 {
		return 0
	}
	prev, cur := make([]int, len(pred)+1), make([]int, len(pred)+1)
	for i := range target {
		for j := range pred {
			if target[i] == pred[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	lcs := float64(prev[len(pred)])
	return f(lcs/float64(len(pred)), lcs/float64(len(target)))
}

// Lsum is rouge_score's _summary_level_lcs: for each target
// sentence the union of its longest common subsequences with every
// predicted sentence, each token counted at most as often as both texts
// hold it; the F-measure of those hits over the prediction's and the
// target's token counts. Sentences are token lists.
func Lsum(target, pred [][]string) float64 {
	m, n := 0, 0
	targetCount, predCount := map[string]int{}, map[string]int{}
	for _, s := range target {
		m += len(s)
		for _, t := range s {
			targetCount[t]++
		}
	}
	for _, s := range pred {
		n += len(s)
		for _, t := range s {
			predCount[t]++
		}
	}
	if m == 0 || n == 0 {
		return 0
	}
	hits := 0
	for _, r := range target {
		union := map[int]bool{}
		for _, c := range pred {
			for _, i := range lcsIndices(r, c) {
				union[i] = true
			}
		}
		for i := range r {
			if t := r[i]; union[i] && predCount[t] > 0 && targetCount[t] > 0 {
				hits++
				predCount[t]--
				targetCount[t]--
			}
		}
	}
	return f(float64(hits)/float64(n), float64(hits)/float64(m))
}

// lcsIndices is rouge_score's lcs_ind: the indices into ref of one
// longest common subsequence of ref and can, read back from the end of
// the table, stepping back in ref on a tie.
func lcsIndices(ref, can []string) []int {
	w := len(can) + 1
	t := make([]int, (len(ref)+1)*w)
	for i := 1; i <= len(ref); i++ {
		for j := 1; j <= len(can); j++ {
			if ref[i-1] == can[j-1] {
				t[i*w+j] = t[(i-1)*w+j-1] + 1
			} else {
				t[i*w+j] = max(t[(i-1)*w+j], t[i*w+j-1])
			}
		}
	}
	var idx []int
	for i, j := len(ref), len(can); i > 0 && j > 0; {
		switch {
		case ref[i-1] == can[j-1]:
			idx = append(idx, i-1)
			i--
			j--
		case t[i*w+j-1] > t[(i-1)*w+j]:
			j--
		default:
			i--
		}
	}
	slices.Reverse(idx)
	return idx
}

// Lines is rouge_score's rougeLsum input: the text's non-empty lines,
// tokenized.
func Lines(text string) [][]string {
	var out [][]string
	for l := range strings.SplitSeq(text, "\n") {
		if l != "" {
			out = append(out, Tokens(l))
		}
	}
	return out
}
