package llm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/hftokenizer"
)

// CountingSet describes a data set in the reference form (cnn_eval.json
// and its tokenizer.json) for a decoder that counts up from each
// prompt's last token, as the zoo's decoder-signature model does: every
// prompt is <s> and one token t, its reference the words of tokens t+1
// to t+Generated, which such a model generates word for word.
type CountingSet struct {
	// Prompts is the number of prompts (llama3.1-8b's data set and
	// performance sample count: 13368).
	Prompts int
	// Vocab is the model's vocabulary size (the tests' model: 64); ids
	// 0, 1 and 2 are <unk>, <s> and </s>.
	Vocab int
	// Generated is the tokens the model generates per prompt
	// (max_new_tokens).
	Generated int
	// WordLen is the characters of each token's word: the reference's
	// generated length per sample is Generated words and the spaces
	// between them, Generated·WordLen + Generated-1 characters.
	WordLen int
}

// Word returns token id's word: "w<id>" padded with "x" to WordLen.
func (s CountingSet) Word(id int) string {
	w := "w" + strconv.Itoa(id)
	if n := s.WordLen - len(w); n > 0 {
		w += strings.Repeat("x", n)
	}
	return w
}

// first and last bound a prompt's token: its continuation stays within
// the vocabulary, past the special tokens.
func (s CountingSet) bounds() (first, last int) {
	return 3, s.Vocab - 1 - s.Generated
}

// Check says what makes s impossible.
func (s CountingSet) Check() error {
	first, last := s.bounds()
	switch {
	case s.Prompts < 1:
		return fmt.Errorf("counting set: %d prompts, want at least 1", s.Prompts)
	case s.Generated < 1:
		return fmt.Errorf("counting set: %d generated tokens, want at least 1", s.Generated)
	case last < first:
		return fmt.Errorf("counting set: a vocabulary of %d has no prompt token whose %d successors are words (want at least %d)", s.Vocab, s.Generated, first+1+s.Generated)
	case s.WordLen < len("w")+len(strconv.Itoa(s.Vocab-1)):
		return fmt.Errorf("counting set: words of %d characters cannot name token %d", s.WordLen, s.Vocab-1)
	}
	return nil
}

// Samples returns the prompts' token ids and their references: prompt i
// ends with token first + i mod the number of prompt tokens.
func (s CountingSet) Samples() ([][]int32, []string) {
	first, last := s.bounds()
	tokens := make([][]int32, s.Prompts)
	refs := make([]string, s.Prompts)
	words := make([]string, s.Generated)
	for i := range tokens {
		t := first + i%(last-first+1)
		tokens[i] = []int32{1, int32(t)}
		for k := range words {
			words[k] = s.Word(t + 1 + k)
		}
		refs[i] = strings.Join(words, " ")
	}
	return tokens, refs
}

// Write writes dir/cnn_eval.json and dir/tokenizer.json (byte-level, as
// Llama 3's, each word after a space).
func (s CountingSet) Write(dir string) error {
	if err := s.Check(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tokens, refs := s.Samples()
	if err := WritePrompts(filepath.Join(dir, "cnn_eval.json"), tokens, refs); err != nil {
		return err
	}
	vocab := make([]string, s.Vocab)
	for i := range vocab {
		vocab[i] = "\u0120" + s.Word(i)
	}
	return hftokenizer.WriteByteLevel(filepath.Join(dir, "tokenizer.json"), vocab, map[int]string{0: "<unk>", 1: "<s>", 2: "</s>"})
}
