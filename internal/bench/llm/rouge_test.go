package llm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/punkt"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
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
	sc := ROUGEScorer
	log, err := os.Open(filepath.Join(td, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer log.Close()
	targets := []string{"The cat sat on the mat.", "Dogs were running quickly in the park, he said.",
		"A summary of news: people connected.", "Generalizations happily made in 2024."}
	s, err := sc.Score(log, accuracy.Inputs{Vocab: filepath.Join(td, "tokenizer.json"), Targets: targets, Dtype: "int32"})
	require.NoError(t, err)
	assert.Equal(t, "{'rouge1': 74.7436, 'rouge2': 59.2657, 'rougeL': 69.7436, 'rougeLsum': 69.7436, 'gen_len': 128, 'gen_num': 4, 'gen_tok_len': 29, 'tokens_per_sample': 7.2}", s.Text())
	v, ok := s.Value(benchmarks.ROUGE1)
	assert.True(t, ok)
	assert.InDelta(t, 74.7436, v, 1e-9)
	v, _ = s.Value(benchmarks.TokensPerSample)
	assert.InDelta(t, 7.2, v, 1e-9)

	_, err = sc.Score(log, accuracy.Inputs{Vocab: filepath.Join(td, "tokenizer.json")})
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
		sc              accuracy.Scorer
		lsum            float64
		genLen          int
	}{
		{benchmark: "llama2-70b", sc: ROUGEScorer, lsum: 93.1242, genLen: 2318,
			want: "{'rouge1': 93.9288, 'rouge2': 86.8657, 'rougeL': 89.1988, 'rougeLsum': 93.1242, 'gen_len': 2318, 'gen_num': 12, 'gen_tok_len': 2387, 'tokens_per_sample': 198.9}"},
		{benchmark: "llama3_1-8b", sc: CNNDMScorer, lsum: 93.1242, genLen: 2318,
			want: "{'rouge1': '93.9288', 'rouge2': '86.8657', 'rougeL': '89.1988', 'rougeLsum': '93.1242', 'gen_len': 2318, 'gen_num': 12}"},
	}
	for _, tt := range tests {
		t.Run(tt.benchmark, func(t *testing.T) {
			t.Parallel()
			sc := tt.sc
			log, err := os.Open(filepath.Join(td, "mlperf_log_accuracy.json"))
			require.NoError(t, err)
			defer log.Close()
			s, err := sc.Score(log, accuracy.Inputs{Vocab: filepath.Join(td, "tokenizer.json"), Targets: targets, Dtype: "int32"})
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Text())
			v, ok := s.Value(benchmarks.ROUGELSUM)
			assert.True(t, ok)
			assert.InDelta(t, tt.lsum, v, 1e-9)
			v, ok = s.Value(benchmarks.GenLen)
			assert.True(t, ok)
			assert.InDelta(t, float64(tt.genLen), v, 0)
			_, ok = s.Value(benchmarks.TokensPerSample)
			assert.Equal(t, tt.benchmark == "llama2-70b", ok, "tokens_per_sample is in evaluate-accuracy.py's line only")
		})
	}
}

// TestROUGELsumPunktDir: accuracy.Inputs.Punkt names a punkt_tab directory; a
// malformed one is an error naming its file.
func TestROUGELsumPunktDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{punkt.AbbrevFile, punkt.CollocationsFile, punkt.SentStartersFile, punkt.OrthoFile} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	td := filepath.Join("testdata", "rouge")
	sc := CNNDMScorer
	targets := []string{"Mr. Smith sat. He left.", "b", "c", "d"}
	score := func() (accuracy.Score, error) {
		log, err := os.Open(filepath.Join(td, "mlperf_log_accuracy.json"))
		require.NoError(t, err)
		defer log.Close()
		return sc.Score(log, accuracy.Inputs{Vocab: filepath.Join(td, "tokenizer.json"), Targets: targets, Dtype: "int32", Punkt: dir})
	}
	_, err := score()
	require.NoError(t, err, "empty parameters split on every period")
	require.NoError(t, os.WriteFile(filepath.Join(dir, punkt.OrthoFile), []byte("the\tmany"), 0o644))
	_, err = score()
	require.ErrorIs(t, err, punkt.ErrParams)
	assert.ErrorContains(t, err, "ortho_context.tab")
}
