package accuracy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-host/mlperf-host/internal/accuracy/punkt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestROUGEFixture: testdata/rouge holds a byte-level tokenizer.json (with
// clean_up_tokenization_spaces), four reference outputs and an int32 log
// with a repeated qsl_idx, special tokens and a non-ASCII token; the line
// is what tools/accuracyref/rouge_check.py (evaluate-accuracy.py's
// algorithm over NLTK's stemmer and Punkt tokenizer, see its docstring)
// prints on them.
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
	assert.Equal(t, "{'rouge1': 74.7436, 'rouge2': 59.2657, 'rougeL': 69.7436, 'rougeLsum': 69.7436, 'gen_len': 128, 'gen_num': 4, 'gen_tok_len': 29, 'tokens_per_sample': 7.2}", s.Text())
	v, ok := s.Value(ROUGE1)
	assert.True(t, ok)
	assert.InDelta(t, 74.7436, v, 1e-9)
	v, _ = s.Value(TokensPerSample)
	assert.InDelta(t, 7.2, v, 1e-9)

	_, err = sc.Score(log, Inputs{Vocab: filepath.Join(td, "tokenizer.json")})
	assert.ErrorContains(t, err, "no reference outputs")
}

// TestROUGELsumFixture: testdata/rougelsum (tools/accuracyref/llm_fixture.py
// testdata/rougelsum 12 14) holds texts of many sentences (abbreviations,
// initials, numbers, quotes, ellipses, line breaks, non-ASCII letters and
// spaces); the lines are what rouge_check.py prints on it, with NLTK's
// PunktSentenceTokenizer over the same English parameters, for each
// script.
func TestROUGELsumFixture(t *testing.T) {
	t.Parallel()
	td := filepath.Join("testdata", "rougelsum")
	b, err := os.ReadFile(filepath.Join(td, "prompts.json"))
	require.NoError(t, err)
	var prompts []struct {
		Output string `json:"output"`
	}
	require.NoError(t, json.Unmarshal(b, &prompts))
	var targets []string
	for _, p := range prompts {
		targets = append(targets, p.Output)
	}
	tests := []struct {
		benchmark, want string
		lsum            float64
		genLen          int
	}{
		{benchmark: "llama2-70b", lsum: 93.1242, genLen: 2318,
			want: "{'rouge1': 93.9288, 'rouge2': 86.8657, 'rougeL': 89.1988, 'rougeLsum': 93.1242, 'gen_len': 2318, 'gen_num': 12, 'gen_tok_len': 2387, 'tokens_per_sample': 198.9}"},
		{benchmark: "llama3_1-8b", lsum: 93.1242, genLen: 2318,
			want: "{'rouge1': '93.9288', 'rouge2': '86.8657', 'rougeL': '89.1988', 'rougeLsum': '93.1242', 'gen_len': 2318, 'gen_num': 12}"},
	}
	for _, tt := range tests {
		t.Run(tt.benchmark, func(t *testing.T) {
			t.Parallel()
			sc, ok, err := LookupScorer("", tt.benchmark)
			require.NoError(t, err)
			require.True(t, ok)
			log, err := os.Open(filepath.Join(td, "mlperf_log_accuracy.json"))
			require.NoError(t, err)
			defer log.Close()
			s, err := sc.Score(log, Inputs{Vocab: filepath.Join(td, "tokenizer.json"), Targets: targets, Dtype: "int32"})
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Text())
			v, ok := s.Value(ROUGELSUM)
			assert.True(t, ok)
			assert.InDelta(t, tt.lsum, v, 1e-9)
			v, ok = s.Value(GenLen)
			assert.True(t, ok)
			assert.InDelta(t, float64(tt.genLen), v, 0)
			_, ok = s.Value(TokensPerSample)
			assert.Equal(t, tt.benchmark == "llama2-70b", ok, "tokens_per_sample is in evaluate-accuracy.py's line only")
		})
	}
}

// TestROUGELsumPunktDir: Inputs.Punkt names a punkt_tab directory; a
// malformed one is an error naming its file.
func TestROUGELsumPunktDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{punkt.AbbrevFile, punkt.CollocationsFile, punkt.SentStartersFile, punkt.OrthoFile} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	td := filepath.Join("testdata", "rouge")
	sc, _, err := LookupScorer("cnndm", "")
	require.NoError(t, err)
	targets := []string{"Mr. Smith sat. He left.", "b", "c", "d"}
	score := func() (Score, error) {
		log, err := os.Open(filepath.Join(td, "mlperf_log_accuracy.json"))
		require.NoError(t, err)
		defer log.Close()
		return sc.Score(log, Inputs{Vocab: filepath.Join(td, "tokenizer.json"), Targets: targets, Dtype: "int32", Punkt: dir})
	}
	_, err = score()
	require.NoError(t, err, "empty parameters split on every period")
	require.NoError(t, os.WriteFile(filepath.Join(dir, punkt.OrthoFile), []byte("the\tmany"), 0o644))
	_, err = score()
	require.ErrorIs(t, err, punkt.ErrParams)
	assert.ErrorContains(t, err, "ortho_context.tab")
}

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
			assert.InDelta(t, tt.want, rougeLsum(split(tt.target), split(tt.pred)), 1e-12)
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
