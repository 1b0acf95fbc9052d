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
	type added struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	type model struct {
		Type   string         `json:"type"`
		Vocab  map[string]int `json:"vocab"`
		Merges []string       `json:"merges"`
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
	t.Version, t.Truncation, t.Padding, t.Normalizer, t.PreTokenizer, t.PostProcessor = "1.0", null, null, null, null, null
	t.Decoder = json.RawMessage(`{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}`)
	t.Model = model{Type: "BPE", Vocab: map[string]int{}, Merges: []string{}}
	for i, tok := range vocab {
		if _, special := specials[i]; !special {
			t.Model.Vocab[tok] = i
		}
	}
	for id, s := range specials {
		t.Added = append(t.Added, added{ID: id, Content: s, Special: true})
		t.Model.Vocab[s] = id
	}
	slices.SortFunc(t.Added, func(a, b added) int { return a.ID - b.ID })
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
