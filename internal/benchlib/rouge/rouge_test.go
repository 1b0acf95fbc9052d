package rouge

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestROUGELsum: hand-worked summary-level LCS.
func TestROUGELsum(t *testing.T) {
	t.Parallel()
	split := func(s string) [][]string {
		var out [][]string
		for l := range strings.SplitSeq(s, "\n") {
			out = append(out, strings.Fields(l))
		}
		return out
	}
	tests := []struct {
		name, target, pred string
		want               float64
	}{
		{name: "same", target: "a b\nc d", pred: "a b\nc d", want: 1},
		// Sentence order does not matter: each target sentence's LCS
		// with the prediction's sentences.
		{name: "reordered", target: "a b\nc d", pred: "c d\na b", want: 1},
		// Target "a b c" against "a x" and "b c": union {a, b, c}, 3 hits
		// of 3 target and 4 predicted tokens: F = 2*(3/4)(3/3)/(3/4+1).
		{name: "union", target: "a b c", pred: "a x\nb c", want: 6.0 / 7},
		// "a" appears once in the prediction: hit once though two target
		// sentences hold it; 1 hit of 2 and 1: F = 2*(1)(1/2)/(3/2).
		{name: "counted once", target: "a\na", pred: "a", want: 2.0 / 3},
		{name: "empty prediction", target: "a", pred: "", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, Lsum(split(tt.target), split(tt.pred)), 1e-12)
		})
	}
	// One of the longest common subsequences: rouge_score steps back in
	// the reference on a tie, so "a b" against "b a" is [0] ("a"), not
	// [1] ("b").
	assert.Equal(t, []int{0}, lcsIndices([]string{"a", "b"}, []string{"b", "a"}))
}

// TestROUGEScores: hand-worked pairs of rouge_score's algorithm.
func TestROUGEScores(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, target, pred string
		r1, r2, rl         float64
	}{
		{name: "same", target: "the cat sat", pred: "The cat, sat!", r1: 1, r2: 1, rl: 1},
		// 2 of 3 unigrams each way; bigram "the cat" of 2 each; LCS 2.
		{name: "one differs", target: "the cat sat", pred: "the cat ran", r1: 2.0 / 3, r2: 0.5, rl: 2.0 / 3},
		// Stems: "running" and "runs" are both "run".
		{name: "stemmed", target: "dogs running", pred: "dog runs", r1: 1, r2: 1, rl: 1},
		{name: "empty prediction", target: "a b", pred: "", r1: 0, r2: 0, rl: 0},
		// LCS "a c" of 3 and 3 tokens; unigrams 3 of 3 (counted with
		// multiplicity): p = r = 1.
		{name: "order", target: "a b c", pred: "c a b", r1: 1, r2: 0.5, rl: 2.0 / 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg, pr := Tokens(tt.target), Tokens(tt.pred)
			assert.InDelta(t, tt.r1, N(tg, pr, 1), 1e-12)
			assert.InDelta(t, tt.r2, N(tg, pr, 2), 1e-12)
			assert.InDelta(t, tt.rl, L(tg, pr), 1e-12)
		})
	}
}

// TestScoresPercent: Scores keeps one score a pair and reports the
// means in percent, rounded to four decimals.
func TestScoresPercent(t *testing.T) {
	t.Parallel()
	var s Scores
	s.Add("the cat sat", "the cat sat")
	s.Add("the cat sat", "a dog ran")
	s.Add("the cat sat\non the mat", "the cat\nsat on a mat")
	require.Equal(t, 3, s.Len())
	p := s.Percent()
	assert.InDelta(t, (1+0+N(Tokens("the cat sat on the mat"), Tokens("the cat sat on a mat"), 1))/3*100, p[0], 1e-4)
	assert.InDelta(t, p[0], math.Round(p[0]*1e4)/1e4, 0, "rounded to four decimals")
	assert.Len(t, s.RougeLsum, 3)
}
