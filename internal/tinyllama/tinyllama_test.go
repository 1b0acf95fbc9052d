package tinyllama

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/gguf"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func encoded(t *testing.T, c Config) []byte {
	t.Helper()
	f, err := GGUF(c)
	require.NoError(t, err)
	var b bytes.Buffer
	_, err = f.WriteTo(&b)
	require.NoError(t, err)
	return b.Bytes()
}

// TestGolden pins the default model's bytes (by their SHA-256): the
// generator is a pure function of its seed.
func TestGolden(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256(encoded(t, DefaultConfig(1)))
	got := hex.EncodeToString(sum[:]) + "\n"
	path := filepath.Join("testdata", "default-seed1.sha256.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

func TestSeeds(t *testing.T) {
	t.Parallel()
	a, b := encoded(t, DefaultConfig(1)), encoded(t, DefaultConfig(2))
	assert.Equal(t, a, encoded(t, DefaultConfig(1)))
	assert.Len(t, b, len(a))
	assert.NotEqual(t, a, b)
}

func row(t *testing.T, tensor gguf.Tensor, i int) []float32 {
	t.Helper()
	n := int(tensor.Dims[0])
	r := make([]float32, n)
	for j := range r {
		r[j] = math.Float32frombits(binary.LittleEndian.Uint32(tensor.Data[4*(i*n+j):]))
	}
	return r
}

func TestModel(t *testing.T) {
	t.Parallel()
	c := DefaultConfig(7)
	f, err := gguf.Read(encoded(t, c))
	require.NoError(t, err)
	vocab := Vocab()
	v, ok := f.Value("tokenizer.ggml.tokens")
	require.True(t, ok)
	assert.Equal(t, vocab, v)
	v, _ = f.Value("llama.embedding_length")
	assert.Equal(t, uint32(64), v)
	v, _ = f.Value("llama.block_count")
	assert.Equal(t, uint32(2), v)
	v, _ = f.Value("tokenizer.ggml.token_type")
	types := v.([]int32)
	assert.Equal(t, []int32{2, 3, 3, 6}, types[:4])
	assert.Equal(t, int32(6), types[FirstPieceID-1])
	assert.Equal(t, int32(1), types[FirstPieceID])
	// 2 blocks of 9 tensors, the embeddings, the output and its norm.
	assert.Len(t, f.Tensors, 21)
	k, ok := f.Tensor("blk.1.attn_k.weight")
	require.True(t, ok)
	assert.Equal(t, []uint64{64, 32}, k.Dims, "2 key-value heads of 16")
	out, ok := f.Tensor("output.weight")
	require.True(t, ok)
	require.Equal(t, []uint64{64, uint64(len(vocab))}, out.Dims)
	zero := make([]float32, 64)
	for _, id := range []int{UnknownID, BOSID, EOSID, FirstByteID, FirstPieceID - 1} {
		assert.Equal(t, zero, row(t, out, id), "output row of %q", vocab[id])
	}
	for _, id := range []int{FirstPieceID, len(vocab) - 1} {
		assert.NotEqual(t, zero, row(t, out, id), "output row of %q", vocab[id])
	}
	embd, _ := f.Tensor("token_embd.weight")
	assert.NotEqual(t, zero, row(t, embd, BOSID), "the prompt's BOS has an embedding")
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{name: "zero blocks", edit: func(c *Config) { c.Blocks = 0 }, want: "blocks 0: want > 0"},
		{name: "heads", edit: func(c *Config) { c.Heads = 5 }, want: "embedding 64 not a multiple of heads 5\nheads 5 not a multiple of kv heads 2"},
		{name: "odd head", edit: func(c *Config) { c.Embedding, c.Heads, c.KVHeads = 12, 4, 4 }, want: "head size 3: rotary embedding needs it even"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig(1)
			tc.edit(&c)
			_, err := GGUF(c)
			require.EqualError(t, err, "tiny llama: "+tc.want)
		})
	}
}

// TestTokenizer: the tokenizer.json gives the GGUF vocabulary's ids, one
// token a character, byte fallback for the rest, and text the model
// generates (character pieces) decodes and encodes back to its ids.
func TestTokenizer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, Write(dir, DefaultConfig(1)))
	tok, err := tokenizer.Open(filepath.Join(dir, TokenizerFile))
	require.NoError(t, err)
	vocab := Vocab()
	assert.Equal(t, len(vocab), tok.VocabSize())
	for i, s := range vocab {
		id, ok := tok.TokenID(s)
		require.True(t, ok, s)
		assert.Equal(t, int32(i), id, s)
	}
	for _, tc := range []struct {
		name string
		text string
		want []int32
	}{
		{name: "words", text: "Hi, yo", want: []int32{piece(t, "H"), piece(t, "i"), piece(t, ","), FirstPieceID, piece(t, "y"), piece(t, "o")}},
		{name: "leading space", text: " a", want: []int32{FirstPieceID, piece(t, "a")}},
		{name: "byte fallback", text: "é\n", want: []int32{FirstByteID + 0xc3, FirstByteID + 0xa9, FirstByteID + '\n'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tok.Encode(tc.text)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.text, tok.Decode(got, true))
		})
	}
	var ids []int32
	for id := FirstPieceID; id < len(vocab); id++ {
		ids = append(ids, int32(id), int32(id), FirstPieceID)
	}
	text := tok.Decode(ids, true)
	assert.Equal(t, ids, tok.Encode(text))
	assert.Len(t, []rune(text), len(ids))
	mf, err := os.ReadFile(filepath.Join(dir, Modelfile))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(mf), "FROM ./model.gguf\n"))
	st, err := os.Stat(filepath.Join(dir, ModelFile))
	require.NoError(t, err)
	assert.Equal(t, int64(len(encoded(t, DefaultConfig(1)))), st.Size())
}

func piece(t *testing.T, s string) int32 {
	t.Helper()
	for i, v := range Vocab() {
		if v == s {
			return int32(i)
		}
	}
	t.Fatalf("no piece %q", s)
	return 0
}
