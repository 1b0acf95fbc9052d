package bert

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// This file is BERT's tokenizer as the SQuAD scorer uses it: the basic
// tokenizer (clean, split CJK characters, lower-case, strip accents,
// split on punctuation) and greedy longest-match-first WordPiece over a
// vocabulary file (vocab.txt: one token per line).

// bertBasicTokenize is BERT's BasicTokenizer with do_lower_case.
func bertBasicTokenize(text string) []string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == 0 || r == 0xfffd || bertControl(r):
		case bertWhitespace(r):
			b.WriteByte(' ')
		case bertCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	var out []string
	for _, tok := range py.Fields(b.String()) {
		tok = stripAccents(strings.ToLower(tok))
		start := 0
		rs := []rune(tok)
		for i, r := range rs {
			if bertPunct(r) {
				if i > start {
					out = append(out, string(rs[start:i]))
				}
				out = append(out, string(r))
				start = i + 1
			}
		}
		if start < len(rs) {
			out = append(out, string(rs[start:]))
		}
	}
	return out
}

func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func bertWhitespace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r)
}

func bertControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.Is(unicode.C, r)
}

func bertPunct(r rune) bool {
	return r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126 || unicode.IsPunct(r)
}

func bertCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF || r >= 0x20000 && r <= 0x2A6DF ||
		r >= 0x2A700 && r <= 0x2B73F || r >= 0x2B740 && r <= 0x2B81F || r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}

// Vocab is a WordPiece vocabulary.
type Vocab map[string]int

// ReadVocab reads a vocab.txt: one token per line, its id the line's
// index.
//
// # Errors
//
// A read error, or a vocabulary without [UNK].
func ReadVocab(r io.Reader) (Vocab, error) {
	v := Vocab{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for i := 0; sc.Scan(); i++ {
		if tok := strings.TrimRight(sc.Text(), "\r"); tok != "" {
			if _, dup := v[tok]; !dup {
				v[tok] = i
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vocab: %w", err)
	}
	if _, ok := v["[UNK]"]; !ok {
		return nil, fmt.Errorf("vocab: no [UNK] token among %d", len(v))
	}
	return v, nil
}

// Tokenize is BERT's full tokenizer: basic tokens split into WordPieces;
// a word of more than 100 characters, or one the vocabulary cannot
// cover, is [UNK].
func (v Vocab) Tokenize(text string) []string {
	var out []string
	for _, word := range bertBasicTokenize(text) {
		rs := []rune(word)
		if len(rs) > 100 {
			out = append(out, "[UNK]")
			continue
		}
		var pieces []string
		for start := 0; start < len(rs); {
			end, piece := len(rs), ""
			for ; start < end; end-- {
				s := string(rs[start:end])
				if start > 0 {
					s = "##" + s
				}
				if _, ok := v[s]; ok {
					piece = s
					break
				}
			}
			if piece == "" {
				pieces = []string{"[UNK]"}
				break
			}
			pieces = append(pieces, piece)
			start = end
		}
		out = append(out, pieces...)
	}
	return out
}
