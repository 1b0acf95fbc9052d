package hftokenizer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLLMDecoders: Llama 2's decoder Sequence (▁ to space, byte
// fallback, one leading space stripped) and Metaspace.
func TestLLMDecoders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(decoder string) *Tokenizer {
		p := filepath.Join(dir, "tokenizer.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"added_tokens": [{"id": 1, "content": "<s>", "special": true}],
			"decoder": `+decoder+`,
			"model": {"type": "BPE", "vocab": {"▁Hello": 5, "▁wor": 6, "ld": 7, "<0xC3>": 8, "<0xA9>": 9, "<0xFF>": 10, ".": 11}}}`), 0o644))
		tok, err := Read(p)
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
	_, err = Read(p)
	assert.ErrorContains(t, err, `decoder "WordPiece"`)
}
