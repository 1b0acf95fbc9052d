package tinyllama

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mlperf-host/mlperf-host/internal/gguf"
)

// Config sizes the model and seeds its weights.
type Config struct {
	Seed          uint64
	Embedding     int // embedding length
	Blocks        int // transformer blocks
	Heads         int // attention heads
	KVHeads       int // key-value heads (grouped-query attention when fewer)
	FeedForward   int // feed-forward length
	ContextLength int // the most tokens of prompt and completion
}

// DefaultConfig is the model of the tests: embedding 64, 2 blocks, 4
// heads of 16, 2 key-value heads, feed-forward 128, context 2048.
func DefaultConfig(seed uint64) Config {
	return Config{Seed: seed, Embedding: 64, Blocks: 2, Heads: 4, KVHeads: 2, FeedForward: 128, ContextLength: 2048}
}

// Validate reports the sizes a llama model cannot have.
func (c Config) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{{"embedding", c.Embedding}, {"blocks", c.Blocks}, {"heads", c.Heads}, {"kv heads", c.KVHeads}, {"feed-forward", c.FeedForward}, {"context length", c.ContextLength}} {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %d: want > 0", f.name, f.v))
		}
	}
	if c.Heads > 0 && c.Embedding%c.Heads != 0 {
		errs = append(errs, fmt.Errorf("embedding %d not a multiple of heads %d", c.Embedding, c.Heads))
	}
	if c.Heads > 0 && c.KVHeads > 0 && c.Heads%c.KVHeads != 0 {
		errs = append(errs, fmt.Errorf("heads %d not a multiple of kv heads %d", c.Heads, c.KVHeads))
	}
	if h := c.Embedding / max(c.Heads, 1); h%2 != 0 {
		errs = append(errs, fmt.Errorf("head size %d: rotary embedding needs it even", h))
	}
	return errors.Join(errs...)
}

// GGUF is the model as a GGUF file: llama metadata, the tokenizer, and
// random F32 weights drawn from c.Seed (token embeddings N(0, 1),
// projections N(0, 1/fan-in), norms 1), the output rows of every token
// but the character pieces zero.
func GGUF(c Config) (*gguf.File, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("tiny llama: %w", err)
	}
	vocab := Vocab()
	nv := uint64(len(vocab))
	types, scores := tokenTypes(len(vocab))
	headDim := c.Embedding / c.Heads
	kvDim := uint64(headDim * c.KVHeads)
	embd, ff := uint64(c.Embedding), uint64(c.FeedForward)
	f := &gguf.File{KV: []gguf.KV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "general.name", Value: "tinyllama"},
		{Key: "general.file_type", Value: uint32(0)}, // all F32
		{Key: "llama.vocab_size", Value: uint32(nv)},
		{Key: "llama.context_length", Value: uint32(c.ContextLength)},
		{Key: "llama.embedding_length", Value: uint32(c.Embedding)},
		{Key: "llama.block_count", Value: uint32(c.Blocks)},
		{Key: "llama.feed_forward_length", Value: uint32(c.FeedForward)},
		{Key: "llama.attention.head_count", Value: uint32(c.Heads)},
		{Key: "llama.attention.head_count_kv", Value: uint32(c.KVHeads)},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: float32(1e-5)},
		{Key: "llama.rope.dimension_count", Value: uint32(headDim)},
		{Key: "llama.rope.freq_base", Value: float32(10000)},
		{Key: "tokenizer.ggml.model", Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Value: vocab},
		{Key: "tokenizer.ggml.scores", Value: scores},
		{Key: "tokenizer.ggml.token_type", Value: types},
		{Key: "tokenizer.ggml.unknown_token_id", Value: uint32(UnknownID)},
		{Key: "tokenizer.ggml.bos_token_id", Value: uint32(BOSID)},
		{Key: "tokenizer.ggml.eos_token_id", Value: uint32(EOSID)},
		{Key: "tokenizer.ggml.add_bos_token", Value: true},
		{Key: "tokenizer.ggml.add_eos_token", Value: false},
		{Key: "tokenizer.ggml.add_space_prefix", Value: false},
	}}
	rng := rand.New(rand.NewPCG(c.Seed, 0x7469_6e79_6c6c_616d)) // "tinyllam"
	add := func(name string, scale float64, dims ...uint64) {
		f.Tensors = append(f.Tensors, gguf.Tensor{Name: name, Dims: dims, Type: gguf.F32, Data: normal(rng, scale, dims)})
	}
	ones := func(name string) {
		f.Tensors = append(f.Tensors, gguf.Tensor{Name: name, Dims: []uint64{embd}, Type: gguf.F32, Data: filled(embd, 1)})
	}
	add("token_embd.weight", 1, embd, nv)
	for b := range c.Blocks {
		p := fmt.Sprintf("blk.%d.", b)
		ones(p + "attn_norm.weight")
		add(p+"attn_q.weight", 1/math.Sqrt(float64(embd)), embd, embd)
		add(p+"attn_k.weight", 1/math.Sqrt(float64(embd)), embd, kvDim)
		add(p+"attn_v.weight", 1/math.Sqrt(float64(embd)), embd, kvDim)
		add(p+"attn_output.weight", 1/math.Sqrt(float64(embd)), embd, embd)
		ones(p + "ffn_norm.weight")
		add(p+"ffn_gate.weight", 1/math.Sqrt(float64(embd)), embd, ff)
		add(p+"ffn_up.weight", 1/math.Sqrt(float64(embd)), embd, ff)
		add(p+"ffn_down.weight", 1/math.Sqrt(float64(ff)), ff, embd)
	}
	ones("output_norm.weight")
	add("output.weight", 1/math.Sqrt(float64(embd)), embd, nv)
	out := f.Tensors[len(f.Tensors)-1].Data
	clear(out[:FirstPieceID*embd*4]) // rows 0 .. FirstPieceID-1
	return f, nil
}

// normal is the little-endian F32 bytes of prod(dims) draws of
// N(0, scale²).
func normal(rng *rand.Rand, scale float64, dims []uint64) []byte {
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(rng.NormFloat64()*scale)))
	}
	return b
}

// filled is n F32 values v.
func filled(n uint64, v float32) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}
