package hftokenizer

import (
	"encoding/json"
	"os"
	"slices"
)

// WriteByteLevel writes a Hugging Face tokenizer.json with a
// byte-level decoder (as Llama 3's) whose token i is vocab[i] ("Ġ" for a
// leading space), and specials as special added tokens: what the LLM
// scorers decode an LLM fixture's generated ids with.
func WriteByteLevel(path string, vocab []string, specials map[int]string) error {
	type added struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	}
	var t struct {
		Added   []added `json:"added_tokens"`
		Decoder struct {
			Type string `json:"type"`
		} `json:"decoder"`
		Model struct {
			Type  string         `json:"type"`
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	t.Decoder.Type, t.Model.Type, t.Model.Vocab = "ByteLevel", "BPE", map[string]int{}
	for i, tok := range vocab {
		if _, special := specials[i]; !special {
			t.Model.Vocab[tok] = i
		}
	}
	for id, s := range specials {
		t.Added = append(t.Added, added{ID: id, Content: s, Special: true})
	}
	slices.SortFunc(t.Added, func(a, b added) int { return a.ID - b.ID })
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
