package bert

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// SQuADQuestion is one question of a SQuAD fixture, in a paragraph of
// its own: the answer is one word of the context.
type SQuADQuestion struct {
	ID, Context, Question, Answer string
}

// WriteSQuAD writes SQuAD v1.1 as the BERT reference reads it into dir:
// dev-v1.1.json and a vocab.txt of the fixture's lower-cased words and
// punctuation, in which every answer word's id is answerFrom or more and
// every other's less (the zoo's BERTSignature answers the context's token
// of the highest such id).
func WriteSQuAD(dir string, questions []SQuADQuestion, answerFrom int) error {
	vocab := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	seen := map[string]bool{}
	answers := map[string]bool{}
	for _, q := range questions {
		answers[strings.ToLower(q.Answer)] = true
	}
	var late []string
	for _, q := range questions {
		for _, w := range fixtureWords(q.Context + " " + q.Question + " " + q.Answer) {
			if seen[w] {
				continue
			}
			seen[w] = true
			if answers[w] {
				late = append(late, w)
			} else {
				vocab = append(vocab, w)
			}
		}
	}
	if len(vocab) > answerFrom {
		return fmt.Errorf("squad fixture: %d words before the answers, which start at id %d", len(vocab), answerFrom)
	}
	for i := len(vocab); i < answerFrom; i++ {
		vocab = append(vocab, fmt.Sprintf("[unused%d]", i))
	}
	vocab = append(vocab, late...)
	type qa struct {
		ID       string `json:"id"`
		Question string `json:"question"`
		Answers  []struct {
			Text  string `json:"text"`
			Start int    `json:"answer_start"`
		} `json:"answers"`
	}
	type paragraph struct {
		Context string `json:"context"`
		QAs     []qa   `json:"qas"`
	}
	var dev struct {
		Version string `json:"version"`
		Data    []struct {
			Title      string      `json:"title"`
			Paragraphs []paragraph `json:"paragraphs"`
		} `json:"data"`
	}
	dev.Version = "1.1"
	dev.Data = make([]struct {
		Title      string      `json:"title"`
		Paragraphs []paragraph `json:"paragraphs"`
	}, 1)
	dev.Data[0].Title = "fixture"
	for _, q := range questions {
		start := strings.Index(q.Context, q.Answer)
		if start < 0 {
			return fmt.Errorf("squad fixture: question %s: answer %q is not in its context", q.ID, q.Answer)
		}
		a := qa{ID: q.ID, Question: q.Question}
		a.Answers = append(a.Answers, struct {
			Text  string `json:"text"`
			Start int    `json:"answer_start"`
		}{q.Answer, start})
		dev.Data[0].Paragraphs = append(dev.Data[0].Paragraphs, paragraph{Context: q.Context, QAs: []qa{a}})
	}
	b, err := json.Marshal(dev)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SQuADDevSet), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SQuADVocab), []byte(strings.Join(vocab, "\n")+"\n"), 0o644)
}

// fixtureWords splits ASCII text as BERT's basic tokenizer does: lower
// case, runs of letters and digits, each punctuation mark a word.
func fixtureWords(s string) []string {
	var out []string
	word := ""
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word += string(r)
			continue
		case word != "":
			out = append(out, word)
			word = ""
		}
		if !unicode.IsSpace(r) {
			out = append(out, string(r))
		}
	}
	if word != "" {
		out = append(out, word)
	}
	return out
}
