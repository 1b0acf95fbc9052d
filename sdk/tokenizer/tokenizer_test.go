package tokenizer_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// Llama 3's pre-tokenizer pattern, as its tokenizer.json writes it.
const llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// byteLevelJSON is a byte-level tokenizer in Llama 3's shape over the 256
// byte characters and a few merges, with one special token and a BOS
// template: it needs no download.
func byteLevelJSON(t testing.TB) []byte {
	t.Helper()
	vocab := map[string]int{}
	for b := range 256 {
		vocab[byteChar(byte(b))] = len(vocab)
	}
	var merges [][2]string
	for _, w := range []string{" the", " and", "ing", "Hello", " world", "  ", "\n\n", "12", "123"} {
		cur := byteChar(w[0])
		for i := 1; i < len(w); i++ {
			next := byteChar(w[i])
			merges = append(merges, [2]string{cur, next})
			cur += next
			if _, ok := vocab[cur]; !ok {
				vocab[cur] = len(vocab)
			}
		}
	}
	bos := len(vocab)
	doc := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil,
		"added_tokens": []any{
			map[string]any{"id": bos, "content": "<|begin_of_text|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
			map[string]any{"id": bos + 1, "content": "<|eot_id|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
		},
		"normalizer": nil,
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": llama3Pattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
		}},
		"post_processor": map[string]any{"type": "TemplateProcessing",
			"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": "<|begin_of_text|>", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}},
			"special_tokens": map[string]any{"<|begin_of_text|>": map[string]any{"id": "<|begin_of_text|>", "ids": []int{bos}, "tokens": []string{"<|begin_of_text|>"}}}},
		"decoder": map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": nil,
			"end_of_word_suffix": nil, "fuse_unk": false, "byte_fallback": false, "ignore_merges": true, "vocab": vocab, "merges": merges},
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	return b
}

// byteChar is GPT-2's byte-level character for b.
func byteChar(b byte) string {
	n := 0
	for c := range int(b) + 1 {
		printable := c >= '!' && c <= '~' || c >= 0xA1 && c <= 0xAC || c >= 0xAE
		if c == int(b) {
			if printable {
				return string(rune(c))
			}
			return string(rune(256 + n))
		}
		if !printable {
			n++
		}
	}
	panic("unreachable")
}

func newByteLevel(t testing.TB) *tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Parse(byteLevelJSON(t))
	require.NoError(t, err)
	return tok
}

func TestLookups(t *testing.T) {
	t.Parallel()
	tok := newByteLevel(t)
	bos, ok := tok.TokenID("<|begin_of_text|>")
	require.True(t, ok)
	assert.True(t, tok.IsSpecial(bos))
	hello, ok := tok.TokenID("Hello")
	require.True(t, ok)
	assert.False(t, tok.IsSpecial(hello))
	s, ok := tok.Token(hello)
	assert.True(t, ok)
	assert.Equal(t, "Hello", s)
	_, ok = tok.Token(-1)
	assert.False(t, ok)
	_, ok = tok.Token(1 << 30)
	assert.False(t, ok)
	assert.Equal(t, int(bos)+2, tok.VocabSize())
	added := tok.AddedTokens()
	require.Len(t, added, 2)
	assert.Equal(t, tokenizer.AddedToken{ID: bos, Content: "<|begin_of_text|>", Special: true}, added[0])
	assert.Equal(t, []int32{bos, hello}, tok.Encode("Hello"))
	assert.Equal(t, []int32{hello}, tok.Encode("Hello", tokenizer.AddSpecialTokens(false)))
	assert.Equal(t, []int32{bos, bos, hello}, tok.Encode("<|begin_of_text|>Hello"))
	assert.Equal(t, "<|begin_of_text|>Hello", tok.Decode([]int32{bos, hello}, false))
	assert.Equal(t, "Hello", tok.Decode([]int32{bos, hello, -5, 1 << 20}, true))
	_, ok = tok.EOS()
	assert.False(t, ok, "no tokenizer_config.json")
}

func TestConfig(t *testing.T) {
	t.Parallel()
	cfg := []byte(`{"bos_token": "<|begin_of_text|>", "eos_token": {"__type": "AddedToken", "content": "<|eot_id|>"},
		"pad_token": null, "clean_up_tokenization_spaces": true, "add_bos_token": true, "tokenizer_class": "PreTrainedTokenizerFast"}`)
	tok, err := tokenizer.ParseConfig(byteLevelJSON(t), cfg)
	require.NoError(t, err)
	c := tok.Config()
	assert.Equal(t, "<|begin_of_text|>", c.BOSToken)
	assert.Equal(t, "<|eot_id|>", c.EOSToken)
	assert.Empty(t, c.PadToken)
	assert.True(t, c.CleanUpTokenizationSpaces)
	require.NotNil(t, c.AddBOSToken)
	assert.True(t, *c.AddBOSToken)
	assert.Nil(t, c.AddEOSToken)
	assert.Equal(t, "PreTrainedTokenizerFast", c.TokenizerClass)
	eos, ok := tok.EOS()
	require.True(t, ok)
	want, _ := tok.TokenID("<|eot_id|>")
	assert.Equal(t, want, eos)
	bos, ok := tok.BOS()
	require.True(t, ok)
	assert.Equal(t, tok.Encode("")[0], bos)

	_, err = tokenizer.ParseConfig(byteLevelJSON(t), []byte(`{"eos_token": 7}`))
	assert.ErrorContains(t, err, "tokenizer_config.json: eos_token")
}

func TestOpenReadsConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), byteLevelJSON(t), 0o600))
	tok, err := tokenizer.Open(filepath.Join(dir, "tokenizer.json"))
	require.NoError(t, err)
	assert.Equal(t, tokenizer.Config{}, tok.Config())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"eos_token": "<|eot_id|>"}`), 0o600))
	tok, err = tokenizer.Open(filepath.Join(dir, "tokenizer.json"))
	require.NoError(t, err)
	assert.Equal(t, "<|eot_id|>", tok.Config().EOSToken)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{`), 0o600))
	_, err = tokenizer.Open(filepath.Join(dir, "tokenizer.json"))
	assert.ErrorContains(t, err, "tokenizer_config.json")
	_, err = tokenizer.Open(filepath.Join(dir, "missing.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestCleanUpSpaces(t *testing.T) {
	t.Parallel()
	tok := newByteLevel(t)
	ids := tok.Encode("Hello , world . I 'm here ! do n't ?", tokenizer.AddSpecialTokens(false))
	assert.Equal(t, "Hello , world . I 'm here ! do n't ?", tok.Decode(ids, true))
	assert.Equal(t, "Hello, world. I'm here! don't?", tok.Decode(ids, true, tokenizer.CleanUpSpaces(true)))
	assert.Equal(t, "Hello , world . I 'm here ! do n't ?", tok.Decode(ids, true, tokenizer.CleanUpSpaces(false)))
}

// TestInvalidUTF8 encodes each invalid byte as U+FFFD.
func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	tok := newByteLevel(t)
	assert.Equal(t, tok.Encode("a\uFFFDb\uFFFD\uFFFD"), tok.Encode("a\xffb\xe2\x82"))
}

// TestLossyDecode: bytes that are not UTF-8 decode as Rust's
// from_utf8_lossy does, one U+FFFD per maximal invalid subsequence.
func TestLossyDecode(t *testing.T) {
	t.Parallel()
	tok := newByteLevel(t)
	id := func(b byte) int32 {
		i, ok := tok.TokenID(byteChar(b))
		require.True(t, ok)
		return i
	}
	for _, c := range []struct {
		name  string
		bytes []byte
		want  string
	}{
		{"truncated three-byte", []byte{0xE2, 0x82}, "\uFFFD"},
		{"truncated then ASCII", []byte{0xE2, 0x82, 'a'}, "\uFFFDa"},
		{"lone continuation bytes", []byte{0x80, 0xBF}, "\uFFFD\uFFFD"},
		{"overlong lead", []byte{0xC0, 0xAF}, "\uFFFD\uFFFD"},
		{"surrogate", []byte{0xED, 0xA0, 0x80}, "\uFFFD\uFFFD\uFFFD"},
		{"E0 with a low second byte", []byte{0xE0, 0x80, 0x80}, "\uFFFD\uFFFD\uFFFD"},
		{"truncated four-byte", []byte{0xF0, 0x9F, 0x98}, "\uFFFD"},
		{"beyond U+10FFFF", []byte{0xF4, 0x90, 0x80, 0x80}, "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"valid", []byte("é"), "é"},
	} {
		ids := make([]int32, len(c.bytes))
		for i, b := range c.bytes {
			ids[i] = id(b)
		}
		assert.Equal(t, c.want, tok.Decode(ids, false), c.name)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	var base map[string]any
	require.NoError(t, json.Unmarshal(byteLevelJSON(t), &base))
	edit := func(f func(m map[string]any)) []byte {
		b, _ := json.Marshal(base)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		f(m)
		out, err := json.Marshal(m)
		require.NoError(t, err)
		return out
	}
	model := func(m map[string]any) map[string]any { return m["model"].(map[string]any) }
	pre := func(m map[string]any, i int) map[string]any {
		return m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[i].(map[string]any)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"not JSON", []byte(`{"model": `), "tokenizer.json: unexpected end"},
		{"version", edit(func(m map[string]any) { m["version"] = "2.0" }), `version: "2.0"`},
		{"no model", edit(func(m map[string]any) { delete(m, "model") }), "model: missing"},
		{"model type", edit(func(m map[string]any) { model(m)["type"] = "Unigram" }), `model.type: model "Unigram" is not supported`},
		{"no vocab", edit(func(m map[string]any) { delete(model(m), "vocab") }), "model.vocab: missing"},
		{"vocab type", edit(func(m map[string]any) { model(m)["vocab"] = []int{1} }), "model.vocab"},
		{"negative id", edit(func(m map[string]any) { model(m)["vocab"].(map[string]any)["x"] = -1 }), `model.vocab["x"]: id -1`},
		{"merge token", edit(func(m map[string]any) { model(m)["merges"] = []any{[]string{"Ġ", "zz"}} }), `model.merges[0]: "zz" is not in the vocabulary`},
		{"merge result", edit(func(m map[string]any) { model(m)["merges"] = []any{[]string{"a", "b"}} }), `model.merges[0]: the merged token "ab"`},
		{"merge line", edit(func(m map[string]any) { model(m)["merges"] = []any{"a b c"} }), `model.merges[0]: "a b c": want two tokens`},
		{"merge pair", edit(func(m map[string]any) { model(m)["merges"] = []any{[]string{"a"}} }), "model.merges[0]: want a pair"},
		{"unk", edit(func(m map[string]any) { model(m)["unk_token"] = "<unk>" }), `model.unk_token: "<unk>" is not in the vocabulary`},
		{"dropout", edit(func(m map[string]any) { model(m)["dropout"] = 0.1 }), "model.dropout"},
		{"truncation", edit(func(m map[string]any) { m["truncation"] = map[string]any{"max_length": 8} }), "truncation: not supported"},
		{"padding", edit(func(m map[string]any) { m["padding"] = map[string]any{} }), "padding: not supported"},
		{"regex", edit(func(m map[string]any) { pre(m, 0)["pattern"] = map[string]any{"Regex": `(?<=a)b`} }), "pre_tokenizer.pretokenizers[0].pattern.Regex: pattern"},
		{"regex unbalanced", edit(func(m map[string]any) { pre(m, 0)["pattern"] = map[string]any{"Regex": `(a`} }), "pre_tokenizer.pretokenizers[0].pattern.Regex"},
		{"pattern kind", edit(func(m map[string]any) { pre(m, 0)["pattern"] = map[string]any{} }), "pre_tokenizer.pretokenizers[0].pattern: want one of String or Regex"},
		{"behavior", edit(func(m map[string]any) { pre(m, 0)["behavior"] = "Merged" }), `pre_tokenizer.pretokenizers[0].behavior: "Merged"`},
		{"pre-tokenizer type", edit(func(m map[string]any) { pre(m, 1)["type"] = "Whitespace" }), `pre_tokenizer.pretokenizers[1].type: pre-tokenizer "Whitespace"`},
		{"no type", edit(func(m map[string]any) { delete(pre(m, 1), "type") }), "pre_tokenizer.pretokenizers[1].type: missing"},
		{"normalizer", edit(func(m map[string]any) { m["normalizer"] = map[string]any{"type": "Precompiled"} }), `normalizer.type: normalizer "Precompiled"`},
		{"decoder", edit(func(m map[string]any) { m["decoder"] = map[string]any{"type": "CTC"} }), `decoder.type: decoder "CTC"`},
		{"strip", edit(func(m map[string]any) {
			m["decoder"] = map[string]any{"type": "Strip", "content": "ab", "start": 1, "stop": 0}
		}), "decoder.content: want one character"},
		{"post-processor", edit(func(m map[string]any) {
			m["post_processor"].(map[string]any)["special_tokens"] = map[string]any{}
		}), `post_processor.single[0].SpecialToken.id: "<|begin_of_text|>" is not in special_tokens`},
		{"added token id", edit(func(m map[string]any) { delete(m["added_tokens"].([]any)[0].(map[string]any), "id") }), "added_tokens[0].id: missing"},
		{"added tokens type", edit(func(m map[string]any) { m["added_tokens"] = "x" }), "added_tokens"},
	} {
		_, err := tokenizer.Parse(c.data)
		assert.ErrorContains(t, err, c.want, c.name)
	}
}

// TestConcurrentEncode: one tokenizer, many goroutines, the same answers
// (the per-word cache is shared).
func TestConcurrentEncode(t *testing.T) {
	t.Parallel()
	tok := newByteLevel(t)
	texts := []string{"Hello world and the ring", "123 4567 the  and\n\nthe", "<|eot_id|>Hello", "ünïcödé wörds 日本"}
	want := make([][]int32, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				i := (g + k) % len(texts)
				if got := tok.Encode(texts[i]); fmt.Sprint(got) != fmt.Sprint(want[i]) {
					errs <- fmt.Sprintf("goroutine %d: %q: %v, want %v", g, texts[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// FuzzParse: a malformed tokenizer.json is an error, never a panic; one
// that parses encodes and decodes any text.
func FuzzParse(f *testing.F) {
	f.Add(byteLevelJSON(f))
	entries, err := os.ReadDir(filepath.Join("testdata", "fixtures"))
	require.NoError(f, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", "fixtures", e.Name()))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a|b)*?c{2,}"}, "behavior": "Contiguous", "invert": true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := tokenizer.Parse(data)
		if err != nil {
			if tok != nil {
				t.Fatal("a tokenizer and an error")
			}
			return
		}
		for _, s := range []string{"", "Hello world", "a  b\n\n\tc 123 日本 😀", "<s>ab</s>"} {
			ids := tok.Encode(s)
			_ = tok.Decode(ids, false)
			_ = tok.Decode(ids, true)
		}
	})
}

// FuzzRoundTrip: byte-level BPE loses nothing: decode(encode(s)) == s
// for any UTF-8 text (the special tokens' text included, when decoded with
// them).
func FuzzRoundTrip(f *testing.F) {
	tok := newByteLevel(f)
	for _, s := range []string{"", "Hello world", "  a\n\n b\t\r\n", "I'm 12345 ünï 日本 😀 👨‍👩‍👧", "<|eot_id|>x<|begin_of_text|>", "\u0085\u2028 \u3000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		ids := tok.Encode(s, tokenizer.AddSpecialTokens(false))
		if got := tok.Decode(ids, false); got != s {
			t.Fatalf("decode(encode(%q)) = %q", s, got)
		}
		if again := tok.Encode(s, tokenizer.AddSpecialTokens(false)); fmt.Sprint(again) != fmt.Sprint(ids) {
			t.Fatalf("encode(%q) twice: %v then %v (cache)", s, ids, again)
		}
	})
}
