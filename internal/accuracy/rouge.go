package accuracy

import (
	"math"
	"strings"
)

// The ROUGE scores the LLM evaluate scripts compute through Hugging
// Face's evaluate "rouge" metric, which is Google's rouge_score
// (rouge_scorer.RougeScorer with use_stemmer=True, one reference per
// prediction, use_aggregator=False): per pair the F-measure of unigrams
// (rouge1), bigrams (rouge2) and the longest common subsequence (rougeL)
// of the texts' tokens, then the mean over the pairs.

// rougeTokens is rouge_score's tokenize with the Porter stemmer: lower
// case, every run of characters other than a-z and 0-9 a separator,
// tokens of more than three characters stemmed.
func rougeTokens(text string) []string {
	text = strings.ToLower(text)
	toks := strings.FieldsFunc(text, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') })
	for i, t := range toks {
		if len(t) > 3 {
			toks[i] = porterStem(t)
		}
	}
	return toks
}

// rougeF is rouge_score's fmeasure of a precision and a recall.
func rougeF(p, r float64) float64 {
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}

// rougeN is rouge_score's _score_ngrams: the F-measure of the n-grams
// shared (counted with multiplicity) by target and prediction.
func rougeN(target, pred []string, n int) float64 {
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
	return rougeF(float64(shared)/float64(max(pn, 1)), float64(shared)/float64(max(tn, 1)))
}

// rougeL is rouge_score's _score_lcs: the F-measure of the longest
// common subsequence's length over the prediction's and the target's.
func rougeL(target, pred []string) float64 {
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
	return rougeF(lcs/float64(len(pred)), lcs/float64(len(target)))
}

// numpyMean is numpy.mean of float64 values: numpy's pairwise summation
// (blocks of 128 summed with eight accumulators, halves beyond), divided
// by the count.
func numpyMean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return numpyPairwiseSum(v) / float64(len(v))
}

func numpyPairwiseSum(v []float64) float64 {
	n := len(v)
	switch {
	case n < 8:
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], v[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := range 8 {
				r[k] += v[i+k]
			}
		}
		s := (r[0] + r[1]) + (r[2] + r[3]) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += v[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return numpyPairwiseSum(v[:n2]) + numpyPairwiseSum(v[n2:])
}

// numpyRound is numpy.round(x, decimals): x scaled, rounded half to
// even, scaled back.
func numpyRound(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.RoundToEven(x*p) / p
}
