package llm

import (
	"encoding/json"
	"fmt"
	"os"
)

// WritePrompts writes a prompts file as records.
func WritePrompts(path string, tokens [][]int32, targets []string) error {
	type rec struct {
		Input  string  `json:"input"`
		Tokens []int32 `json:"tok_input"`
		Output string  `json:"output"`
	}
	recs := make([]rec, len(tokens))
	for i, t := range tokens {
		recs[i] = rec{Input: fmt.Sprintf("prompt %d", i), Tokens: t}
		if i < len(targets) {
			recs[i].Output = targets[i]
		}
	}
	b, err := json.Marshal(recs)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
