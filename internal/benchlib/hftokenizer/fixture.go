package hftokenizer

import (
	"encoding/json"
	"os"
	"slices"
)

// WriteByteLevel writes a Hugging Face tokenizer.json with a
// byte-level decoder (as Llama 3's) whose token i is vocab[i] ("Ġ" for a
// leading space), and specials as special added tokens, which the
// vocabulary holds at their ids too (as Llama 2's does <s>), so that the
// tokenizers library and sdk/tokenizer give them those ids: what the LLM
// scorers decode an LLM fixture's generated ids with.
func WriteByteLevel(path string, vocab []string, specials map[int]string) error {
	return write(path, vocab, specials, model{Type: "BPE"},
		"null", `{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}`)
}

// WriteSentencePiece writes a Hugging Face tokenizer.json of
// SentencePiece-style BPE with byte fallback, as Llama 2's is converted,
// for a vocabulary of single pieces and no merges: token i is vocab[i]
// ("▁" for a space, "<0x0A>" for a byte), the specials are special added
// tokens at their ids, unk names the unknown token. Unlike Llama 2's,
// neither the normalizer nor the decoder adds or strips a leading space
// (SentencePiece's add_dummy_prefix off), so decoding ids to text and
// encoding the text gives the ids back.
func WriteSentencePiece(path string, vocab []string, specials map[int]string, unk string) error {
	yes := true
	return write(path, vocab, specials, model{Type: "BPE", UnkToken: &unk, FuseUnk: &yes, ByteFallback: &yes},
		`{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}`,
		`{"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}]}`)
}

type model struct {
	Type         string         `json:"type"`
	UnkToken     *string        `json:"unk_token,omitempty"`
	FuseUnk      *bool          `json:"fuse_unk,omitempty"`
	ByteFallback *bool          `json:"byte_fallback,omitempty"`
	Vocab        map[string]int `json:"vocab"`
	Merges       []string       `json:"merges"`
}

// write writes a tokenizer.json of m over vocab with specials and the
// given normalizer and decoder (JSON).
func write(path string, vocab []string, specials map[int]string, m model, normalizer, decoder string) error {
	type added struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	var t struct {
		Version       string          `json:"version"`
		Truncation    json.RawMessage `json:"truncation"`
		Padding       json.RawMessage `json:"padding"`
		Added         []added         `json:"added_tokens"`
		Normalizer    json.RawMessage `json:"normalizer"`
		PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
		PostProcessor json.RawMessage `json:"post_processor"`
		Decoder       json.RawMessage `json:"decoder"`
		Model         model           `json:"model"`
	}
	null := json.RawMessage("null")
	t.Version, t.Truncation, t.Padding, t.PreTokenizer, t.PostProcessor = "1.0", null, null, null, null
	t.Normalizer, t.Decoder = json.RawMessage(normalizer), json.RawMessage(decoder)
	m.Vocab, m.Merges = map[string]int{}, []string{}
	for i, tok := range vocab {
		if _, special := specials[i]; !special {
			m.Vocab[tok] = i
		}
	}
	for id, s := range specials {
		t.Added = append(t.Added, added{ID: id, Content: s, Special: true})
		m.Vocab[s] = id
	}
	t.Model = m
	slices.SortFunc(t.Added, func(a, b added) int { return a.ID - b.ID })
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
