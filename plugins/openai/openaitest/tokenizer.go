package openaitest

import (
	"encoding/json"
	"os"
)

// WriteTokenizer writes a Hugging Face tokenizer.json for pieces (see
// [DefaultPieces]): ids 0 to 2 special, every other piece one
// character of a byte-level BPE vocabulary without merges, so that
// encoding the server's text gives back the ids it generated.
func WriteTokenizer(path string, pieces []string) error {
	type added struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	}
	vocab := map[string]int{}
	var specials []added
	for i, p := range pieces {
		vocab[p] = i
		if i < 3 {
			specials = append(specials, added{ID: i, Content: p, Special: true})
		}
	}
	t := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": specials,
		"normalizer": nil, "pre_tokenizer": nil, "post_processor": nil,
		"decoder": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
		"model":   map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{}},
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
