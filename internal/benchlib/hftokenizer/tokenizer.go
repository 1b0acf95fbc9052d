package hftokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tokenizer turns an LLM's token ids back into text as the evaluate
// scripts' tokenizer.batch_decode(ids, skip_special_tokens=True) does,
// from the model's Hugging Face tokenizer.json: ids to tokens (added
// tokens included, special ones skipped), the file's decoder (ByteLevel,
// as Llama 3's; Metaspace, or the Sequence of Replace "▁", ByteFallback,
// Fuse and Strip, as Llama 2's), then, where tokenizer_config.json beside
// it sets clean_up_tokenization_spaces, transformers' clean-up of spaces
// before punctuation and contractions.
type Tokenizer struct {
	tokens  map[int64]string
	special map[int64]bool
	decode  func(tokens []string) string
	cleanUp bool
}

// Read reads a tokenizer.json (and tokenizer_config.json in
// its directory, when there).
//
// # Errors
//
// An unreadable or malformed file, or a decoder it does not know.
func Read(path string) (*Tokenizer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("llm tokenizer: %w", err)
	}
	var f struct {
		Added []struct {
			ID      int64  `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Decoder json.RawMessage `json:"decoder"`
		Model   struct {
			Vocab map[string]int64 `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("llm tokenizer %s: %w", path, err)
	}
	if len(f.Model.Vocab) == 0 {
		return nil, fmt.Errorf("llm tokenizer %s: no model.vocab", path)
	}
	t := &Tokenizer{tokens: make(map[int64]string, len(f.Model.Vocab)+len(f.Added)), special: map[int64]bool{}}
	for tok, id := range f.Model.Vocab {
		t.tokens[id] = tok
	}
	for _, a := range f.Added {
		t.tokens[a.ID] = a.Content
		if a.Special {
			t.special[a.ID] = true
		}
	}
	if t.decode, err = llmDecoder(f.Decoder); err != nil {
		return nil, fmt.Errorf("llm tokenizer %s: %w", path, err)
	}
	if cb, err := os.ReadFile(filepath.Join(filepath.Dir(path), "tokenizer_config.json")); err == nil {
		var c struct {
			CleanUp bool `json:"clean_up_tokenization_spaces"`
		}
		if err := json.Unmarshal(cb, &c); err != nil {
			return nil, fmt.Errorf("llm tokenizer: tokenizer_config.json: %w", err)
		}
		t.cleanUp = c.CleanUp
	}
	return t, nil
}

// Decode returns the text of ids; an id the tokenizer lacks is an error.
func (t *Tokenizer) Decode(ids []int64) (string, error) {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		tok, ok := t.tokens[id]
		if !ok {
			return "", fmt.Errorf("token id %d is not in the tokenizer", id)
		}
		if !t.special[id] {
			toks = append(toks, tok)
		}
	}
	s := t.decode(toks)
	if t.cleanUp {
		// transformers' clean_up_tokenization, in its order.
		for _, r := range [][2]string{{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
			{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}} {
			s = strings.ReplaceAll(s, r[0], r[1])
		}
	}
	return s, nil
}

// llmDecoder builds the decoder a tokenizer.json names.
func llmDecoder(raw json.RawMessage) (func([]string) string, error) {
	var d struct {
		Type        string            `json:"type"`
		Decoders    []json.RawMessage `json:"decoders"`
		Replacement string            `json:"replacement"`
		Prepend     string            `json:"prepend_scheme"`
		AddPrefix   *bool             `json:"add_prefix_space"`
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("no decoder")
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	switch d.Type {
	case "ByteLevel":
		return byteLevelDecode, nil
	case "Metaspace":
		strip := d.Prepend != "never" && (d.AddPrefix == nil || *d.AddPrefix)
		rep := d.Replacement
		if rep == "" {
			rep = "▁"
		}
		return func(toks []string) string {
			var b strings.Builder
			for i, tok := range toks {
				tok = strings.ReplaceAll(tok, rep, " ")
				if i == 0 && strip {
					tok = strings.TrimPrefix(tok, " ")
				}
				b.WriteString(tok)
			}
			return b.String()
		}, nil
	case "Sequence":
		var steps []func([]string) []string
		for _, sub := range d.Decoders {
			s, err := llmDecoderStep(sub)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s)
		}
		return func(toks []string) string {
			for _, s := range steps {
				toks = s(toks)
			}
			return strings.Join(toks, "")
		}, nil
	}
	return nil, fmt.Errorf("decoder %q: want ByteLevel, Metaspace or a Sequence of Replace, ByteFallback, Fuse and Strip", d.Type)
}

// llmDecoderStep is one decoder of a Sequence, token list to token list.
func llmDecoderStep(raw json.RawMessage) (func([]string) []string, error) {
	var d struct {
		Type    string `json:"type"`
		Pattern struct {
			String *string `json:"String"`
		} `json:"pattern"`
		Content string `json:"content"`
		Start   int    `json:"start"`
		Stop    int    `json:"stop"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	switch d.Type {
	case "Replace":
		if d.Pattern.String == nil {
			return nil, errors.New("decoder Replace: only a String pattern is read")
		}
		from, to := *d.Pattern.String, d.Content
		return func(toks []string) []string {
			for i := range toks {
				toks[i] = strings.ReplaceAll(toks[i], from, to)
			}
			return toks
		}, nil
	case "ByteFallback":
		return byteFallback, nil
	case "Fuse":
		return func(toks []string) []string { return []string{strings.Join(toks, "")} }, nil
	case "Strip":
		return func(toks []string) []string {
			for i := range toks {
				toks[i] = stripChars(toks[i], d.Content, d.Start, d.Stop)
			}
			return toks
		}, nil
	}
	return nil, fmt.Errorf("decoder %q in a Sequence: want Replace, ByteFallback, Fuse or Strip", d.Type)
}

// stripChars removes up to start leading and stop trailing occurrences
// of content, as the tokenizers Strip decoder.
func stripChars(s, content string, start, stop int) string {
	for range start {
		if !strings.HasPrefix(s, content) || content == "" {
			break
		}
		s = s[len(content):]
	}
	for range stop {
		if !strings.HasSuffix(s, content) || content == "" {
			break
		}
		s = s[:len(s)-len(content)]
	}
	return s
}

// byteFallback turns each run of <0xNN> tokens into the text of its
// bytes, or one U+FFFD per byte when they are not UTF-8.
func byteFallback(toks []string) []string {
	out := make([]string, 0, len(toks))
	var pending []byte
	n := 0
	flush := func() {
		if n == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range n {
				out = append(out, "\uFFFD")
			}
		}
		pending, n = pending[:0], 0
	}
	for _, tok := range toks {
		if len(tok) == 6 && strings.HasPrefix(tok, "<0x") && tok[5] == '>' {
			if v, err := strconv.ParseUint(tok[3:5], 16, 8); err == nil {
				pending = append(pending, byte(v))
				n++
				continue
			}
		}
		flush()
		out = append(out, tok)
	}
	flush()
	return out
}

// byteLevelChars maps GPT-2's byte-level characters back to bytes.
var byteLevelChars = func() map[rune]byte {
	m := map[rune]byte{}
	extra := 0
	for b := 0; b < 256; b++ {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF {
			m[rune(b)] = byte(b)
		} else {
			m[rune(256+extra)] = byte(b)
			extra++
		}
	}
	return m
}()

// byteLevelDecode joins byte-level tokens into text: each token's
// characters as the bytes they stand for (a token with another character
// as it is), invalid UTF-8 replaced.
func byteLevelDecode(toks []string) string {
	var b []byte
	for _, tok := range toks {
		start := len(b)
		for _, r := range tok {
			c, ok := byteLevelChars[r]
			if !ok {
				b = append(b[:start], tok...)
				break
			}
			b = append(b, c)
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
