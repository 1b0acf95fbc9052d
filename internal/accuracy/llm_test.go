package accuracy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestROUGEFixture: testdata/rouge holds a byte-level tokenizer.json (with
// clean_up_tokenization_spaces), four reference outputs and an int32 log
// with a repeated qsl_idx, special tokens and a non-ASCII token; the line
// is what tools/accuracyref/rouge_check.py (evaluate-accuracy.py's
// algorithm over NLTK's stemmer, see its docstring) prints on them.
func TestROUGEFixture(t *testing.T) {
	t.Parallel()
	td := filepath.Join("testdata", "rouge")
	sc, ok, err := LookupScorer("", "llama2-70b")
	require.NoError(t, err)
	require.True(t, ok)
	log, err := os.Open(filepath.Join(td, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer log.Close()
	targets := []string{"The cat sat on the mat.", "Dogs were running quickly in the park, he said.",
		"A summary of news: people connected.", "Generalizations happily made in 2024."}
	s, err := sc.Score(log, Inputs{Vocab: filepath.Join(td, "tokenizer.json"), Targets: targets, Dtype: "int32"})
	require.NoError(t, err)
	assert.Equal(t, "{'rouge1': 74.7436, 'rouge2': 59.2657, 'rougeL': 69.7436, 'gen_num': 4, 'gen_tok_len': 29, 'tokens_per_sample': 7.2}", s.Text())
	v, ok := s.Value(ROUGE1)
	assert.True(t, ok)
	assert.InDelta(t, 74.7436, v, 1e-9)
	v, _ = s.Value(TokensPerSample)
	assert.InDelta(t, 7.2, v, 1e-9)

	_, err = sc.Score(log, Inputs{Vocab: filepath.Join(td, "tokenizer.json")})
	assert.ErrorContains(t, err, "no reference outputs")
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
			tg, pr := rougeTokens(tt.target), rougeTokens(tt.pred)
			assert.InDelta(t, tt.r1, rougeN(tg, pr, 1), 1e-12)
			assert.InDelta(t, tt.r2, rougeN(tg, pr, 2), 1e-12)
			assert.InDelta(t, tt.rl, rougeL(tg, pr), 1e-12)
		})
	}
}

// TestNumpyMeanAndRound: pairwise summation as numpy's (a value that
// sequential summation gets otherwise) and round half to even.
func TestNumpyMeanAndRound(t *testing.T) {
	t.Parallel()
	v := make([]float64, 200)
	for i := range v {
		v[i] = 0.1 * float64(i%7)
	}
	seq := 0.0
	for _, x := range v {
		seq += x
	}
	// numpy.mean([0.1*(i%7) for i in range(200)]) == 0.29700000000000004;
	// summed in order, 0.29700000000000015.
	assert.NotEqual(t, seq/200, numpyMean(v))               //nolint:testifylint // exact: numpy's result to the last bit
	assert.Equal(t, 0.29700000000000004, numpyMean(v))      //nolint:testifylint // exact: numpy's result to the last bit
	assert.Equal(t, 0.12, numpyRound(0.125, 2))             //nolint:testifylint // exact: numpy's result to the last bit
	assert.Equal(t, 44.4312, numpyRound(44.43115000001, 4)) //nolint:testifylint // exact: numpy's result to the last bit
}

// TestLLMDecoders: Llama 2's decoder Sequence (▁ to space, byte
// fallback, one leading space stripped) and Metaspace.
func TestLLMDecoders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(decoder string) *LLMTokenizer {
		p := filepath.Join(dir, "tokenizer.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"added_tokens": [{"id": 1, "content": "<s>", "special": true}],
			"decoder": `+decoder+`,
			"model": {"type": "BPE", "vocab": {"▁Hello": 5, "▁wor": 6, "ld": 7, "<0xC3>": 8, "<0xA9>": 9, "<0xFF>": 10, ".": 11}}}`), 0o644))
		tok, err := ReadLLMTokenizer(p)
		require.NoError(t, err)
		return tok
	}
	seq := write(`{"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
		{"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}`)
	s, err := seq.Decode([]int64{1, 5, 6, 7, 8, 9, 11, 10, 8})
	require.NoError(t, err)
	// A run of byte tokens that is not UTF-8 is one U+FFFD per byte.
	assert.Equal(t, "Hello worldé.\uFFFD\uFFFD", s)
	_, err = seq.Decode([]int64{5, 99})
	assert.ErrorContains(t, err, "token id 99")

	meta := write(`{"type": "Metaspace", "replacement": "▁", "add_prefix_space": true}`)
	s, err = meta.Decode([]int64{5, 6, 7})
	require.NoError(t, err)
	assert.Equal(t, "Hello world", s)

	p := filepath.Join(dir, "tokenizer.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"decoder": {"type": "WordPiece"}, "model": {"vocab": {"a": 0}}}`), 0o644))
	_, err = ReadLLMTokenizer(p)
	assert.ErrorContains(t, err, `decoder "WordPiece"`)
}
