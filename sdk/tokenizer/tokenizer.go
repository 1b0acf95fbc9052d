package tokenizer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Tokenizer is a parsed tokenizer.json. It is immutable after [Open] or
// [Parse] and safe for concurrent use.
type Tokenizer struct {
	added      addedVocab
	normalizer normalizer
	pre        preTokenizer
	byteDomain bool // the pre-tokenizer's last step is ByteLevel: the model reads raw bytes
	model      *bpe
	post       *postProcessor
	decoder    decoder
	tokens     []tokenInfo // by id: what Decode and Token see
	config     Config
	scratch    sync.Pool // *scratch
}

// tokenInfo is one id's token as decode sees it.
type tokenInfo struct {
	text    string
	ok      bool // the id has a token
	special bool // the token is a special added token
}

// Config is what tokenizer_config.json says about the tokenizer, as
// transformers reads it. The zero Config is what a tokenizer without one
// has.
type Config struct {
	// BOSToken, EOSToken, PadToken and UnkToken are the special tokens'
	// texts ("" when unset).
	BOSToken, EOSToken, PadToken, UnkToken string
	// AddBOSToken and AddEOSToken are the file's add_bos_token and
	// add_eos_token, nil when absent. The tokenizers library ignores them
	// (the post-processor of tokenizer.json decides); transformers'
	// LlamaTokenizerFast rebuilds its post-processor from them.
	AddBOSToken, AddEOSToken *bool
	// CleanUpTokenizationSpaces is clean_up_tokenization_spaces: whether
	// transformers' decode removes the spaces before punctuation and
	// contractions (see [CleanUpSpaces]).
	CleanUpTokenizationSpaces bool
	// TokenizerClass is tokenizer_class, e.g. "PreTrainedTokenizerFast".
	TokenizerClass string
}

// Open reads a tokenizer.json and, when there is one in the same
// directory, its tokenizer_config.json.
//
// # Errors
//
// An unreadable file, or what [ParseConfig] reports, prefixed with the
// file's path.
func Open(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	cfgPath := filepath.Join(filepath.Dir(path), "tokenizer_config.json")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := ParseConfig(data, cfg)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

// Parse builds a tokenizer from the bytes of a tokenizer.json, without a
// tokenizer_config.json.
//
// # Errors
//
// Malformed JSON, a missing or ill-typed field, a merge naming a token
// the vocabulary lacks, or a component (normalizer, pre-tokenizer, model,
// post-processor, decoder) or pattern this package does not implement:
// each error names the field, e.g.
// `pre_tokenizer.pretokenizers[0].pattern.Regex: ...`.
func Parse(data []byte) (*Tokenizer, error) {
	return ParseConfig(data, nil)
}

// ParseConfig is [Parse] with the bytes of a tokenizer_config.json (nil or
// empty for none).
func ParseConfig(data, config []byte) (*Tokenizer, error) {
	t, err := parseTokenizer(data)
	if err != nil {
		return nil, err
	}
	if len(config) > 0 {
		if t.config, err = parseConfig(config); err != nil {
			return nil, fmt.Errorf("tokenizer_config.json: %w", err)
		}
	}
	return t, nil
}

// EncodeOption changes what [Tokenizer.Encode] does.
type EncodeOption func(*encodeSettings)

type encodeSettings struct {
	addSpecial bool
}

var (
	addSpecialOn  EncodeOption = func(s *encodeSettings) { s.addSpecial = true }
	addSpecialOff EncodeOption = func(s *encodeSettings) { s.addSpecial = false }
)

// AddSpecialTokens says whether the post-processor adds its special
// tokens (Llama's BOS): the library's add_special_tokens, true by
// default. Special tokens written in the text are split out either way.
func AddSpecialTokens(add bool) EncodeOption {
	if add {
		return addSpecialOn
	}
	return addSpecialOff
}

// Encode returns the token ids of text, as the library's
// encode(text, add_special_tokens) does.
//
// Example, with Llama 3.1's tokenizer:
//
//	ids := t.Encode("Hello world")                              // [128000 9906 1917]
//	ids = t.Encode("Hello world", tokenizer.AddSpecialTokens(false)) // [9906 1917]
func (t *Tokenizer) Encode(text string, opts ...EncodeOption) []int32 {
	return t.AppendEncode(nil, text, opts...)
}

// AppendEncode appends the token ids of text to dst and returns the
// extended slice, as [Tokenizer.Encode].
func (t *Tokenizer) AppendEncode(dst []int32, text string, opts ...EncodeOption) []int32 {
	s := encodeSettings{addSpecial: true}
	for _, o := range opts {
		o(&s)
	}
	return t.encode(dst, text, s)
}

// DecodeOption changes what [Tokenizer.Decode] does.
type DecodeOption func(*decodeSettings)

type decodeSettings struct {
	cleanUp bool
}

var (
	cleanUpOn  DecodeOption = func(s *decodeSettings) { s.cleanUp = true }
	cleanUpOff DecodeOption = func(s *decodeSettings) { s.cleanUp = false }
)

// CleanUpSpaces applies transformers' clean_up_tokenization to the decoded
// text: " ." " ?" " !" " ," lose their space, " ' " becomes "'", and
// " n't" " 'm" " 's" " 've" " 're" lose theirs. transformers does this
// when tokenizer_config.json sets clean_up_tokenization_spaces
// ([Config.CleanUpTokenizationSpaces]); the tokenizers library never does.
func CleanUpSpaces(on bool) DecodeOption {
	if on {
		return cleanUpOn
	}
	return cleanUpOff
}

// Decode returns the text of ids as the library's decode(ids,
// skip_special_tokens) does: ids the tokenizer lacks are left out, and
// with skipSpecial so are special tokens; the decoder of tokenizer.json
// joins the rest (bytes that are not UTF-8 become U+FFFD).
//
// To decode as transformers' tokenizer.decode does, pass
// CleanUpSpaces(t.Config().CleanUpTokenizationSpaces).
func (t *Tokenizer) Decode(ids []int32, skipSpecial bool, opts ...DecodeOption) string {
	var s decodeSettings
	for _, o := range opts {
		o(&s)
	}
	out := t.decode(ids, skipSpecial)
	if s.cleanUp {
		out = cleanUpTokenization(out)
	}
	return out
}

// cleanUpTokenization is transformers' clean_up_tokenization, in its order.
func cleanUpTokenization(s string) string {
	return cleanUpReplacer.Replace(s)
}

var cleanUpReplacer = newSequentialReplacer(
	" .", ".", " ?", "?", " !", "!", " ,", ",", " ' ", "'",
	" n't", "n't", " 'm", "'m", " 's", "'s", " 've", "'ve", " 're", "'re")

// sequentialReplacer applies its replacements one after the other, each
// over the whole text, as Python's chained str.replace calls do.
type sequentialReplacer []string

func newSequentialReplacer(pairs ...string) sequentialReplacer { return pairs }

func (r sequentialReplacer) Replace(s string) string {
	for i := 0; i < len(r); i += 2 {
		s = strings.ReplaceAll(s, r[i], r[i+1])
	}
	return s
}

// TokenID returns the id of a token (an added token's content, or a
// vocabulary entry as written in tokenizer.json, e.g. "Ġthe" for a
// byte-level vocabulary), as the library's token_to_id.
func (t *Tokenizer) TokenID(token string) (int32, bool) {
	if id, ok := t.added.ids[token]; ok {
		return id, true
	}
	id, ok := t.model.vocab[token]
	return id, ok
}

// Token returns the token of id as decode sees it (the library's
// id_to_token); ok is false for an id the tokenizer lacks.
func (t *Tokenizer) Token(id int32) (string, bool) {
	if id < 0 || int(id) >= len(t.tokens) || !t.tokens[id].ok {
		return "", false
	}
	return t.tokens[id].text, true
}

// IsSpecial reports whether id is a special token: one that decode with
// skipSpecial leaves out.
func (t *Tokenizer) IsSpecial(id int32) bool {
	return id >= 0 && int(id) < len(t.tokens) && t.tokens[id].ok && t.tokens[id].special
}

// VocabSize is the number of distinct tokens, added tokens included (the
// library's get_vocab_size(with_added_tokens=True)).
func (t *Tokenizer) VocabSize() int {
	n := 0
	for _, ti := range t.tokens {
		if ti.ok {
			n++
		}
	}
	return n
}

// AddedToken is an entry of tokenizer.json's added_tokens.
type AddedToken struct {
	ID         int32
	Content    string
	Special    bool
	Normalized bool
	LStrip     bool
	RStrip     bool
	SingleWord bool
}

// AddedTokens returns the added tokens, in id order.
func (t *Tokenizer) AddedTokens() []AddedToken {
	return append([]AddedToken(nil), t.added.list...)
}

// Config returns what tokenizer_config.json said (the zero Config when the
// tokenizer was parsed without one).
func (t *Tokenizer) Config() Config { return t.config }

// BOS returns the id of tokenizer_config.json's bos_token.
func (t *Tokenizer) BOS() (int32, bool) { return t.configToken(t.config.BOSToken) }

// EOS returns the id of tokenizer_config.json's eos_token: the token that
// ends a generation (Llama 3.1 Instruct's <|eot_id|>, Qwen3's <|im_end|>).
func (t *Tokenizer) EOS() (int32, bool) { return t.configToken(t.config.EOSToken) }

func (t *Tokenizer) configToken(s string) (int32, bool) {
	if s == "" {
		return 0, false
	}
	return t.TokenID(s)
}
