package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// addedVocab is tokenizer.json's added_tokens as the library keeps them.
type addedVocab struct {
	ids            map[string]int32 // content → id
	byID           map[int32]int    // id → index in list
	list           []AddedToken     // by id
	special        map[string]bool  // contents of special tokens
	normalizedForm map[int32]string // normalized tokens whose normalized content differs
	raw            trie             // tokens matched in the input text (normalized: false)
	norm           trie             // tokens matched in normalized text (normalized: true)
}

// build makes the two matchers; a normalized token is matched by its
// content as the normalizer leaves it.
func (av *addedVocab) build(n normalizer) error {
	av.normalizedForm = map[int32]string{}
	av.raw.reset()
	av.norm.reset()
	for k, tok := range av.list {
		if !tok.Normalized {
			av.raw.insert(tok.Content, k)
			continue
		}
		pat := tok.Content
		if n != nil {
			pat, _ = n.normalize(pat)
			if pat != tok.Content {
				av.normalizedForm[tok.ID] = pat
			}
		}
		if pat != "" {
			av.norm.insert(pat, k)
		}
	}
	return nil
}

// trie matches a set of strings leftmost-longest.
type trie struct {
	nodes []trieNode
	first [256]bool // bytes a string of the set starts with
}

type trieNode struct {
	next  map[byte]int32
	token int // index in addedVocab.list, -1 for none
}

func (t *trie) reset() {
	t.nodes = []trieNode{{token: -1}}
	t.first = [256]bool{}
}

func (t *trie) empty() bool { return len(t.nodes) <= 1 }

func (t *trie) insert(s string, token int) {
	t.first[s[0]] = true
	n := 0
	for i := 0; i < len(s); i++ {
		nx, ok := t.nodes[n].next[s[i]]
		if !ok {
			if t.nodes[n].next == nil {
				t.nodes[n].next = map[byte]int32{}
			}
			t.nodes = append(t.nodes, trieNode{token: -1})
			nx = int32(len(t.nodes) - 1)
			t.nodes[n].next[s[i]] = nx
		}
		n = int(nx)
	}
	t.nodes[n].token = token
}

// longest returns the longest string of the set at the start of s.
func (t *trie) longest(s string) (token, length int) {
	token, length = -1, 0
	n := 0
	for i := 0; i < len(s); i++ {
		nx, ok := t.nodes[n].next[s[i]]
		if !ok {
			break
		}
		n = int(nx)
		if t.nodes[n].token >= 0 {
			token, length = t.nodes[n].token, i+1
		}
	}
	return token, length
}

// piece is a part of the text on its way to the model: text still to
// tokenize, or an added token already found (id >= 0).
type piece struct {
	text    string
	id      int32
	atStart bool // begins at the start of the input (Metaspace's prepend_scheme "first")
}

// splitAdded cuts s at the added tokens of set, as the library's
// find_matches: leftmost-longest matches, a single_word token only between
// non-word characters, lstrip/rstrip taking the spaces beside it.
func (av *addedVocab) splitAdded(dst []piece, s string, atStart bool, set *trie) []piece {
	if set.empty() {
		return append(dst, piece{text: s, id: -1, atStart: atStart})
	}
	prev := 0 // end of the previous split
	for i := 0; i < len(s); {
		if !set.first[s[i]] {
			i++
			continue
		}
		k, n := set.longest(s[i:])
		if k < 0 {
			i++
			continue
		}
		tok := &av.list[k]
		start, stop := i, i+n
		i = stop
		if tok.SingleWord {
			startOK := start == 0 || !endsWithWord(s[:start])
			stopOK := stop == len(s) || !startsWithWord(s[stop:])
			if !startOK || !stopOK {
				continue
			}
		}
		if tok.LStrip {
			start = max(trailingSpaceStart(s[:start]), prev)
		}
		if tok.RStrip {
			stop += leadingSpaceLen(s[stop:])
		}
		if prev < start {
			dst = append(dst, piece{text: s[prev:start], id: -1, atStart: atStart && prev == 0})
		}
		dst = append(dst, piece{text: s[start:stop], id: tok.ID})
		prev = stop
	}
	if prev < len(s) {
		dst = append(dst, piece{text: s[prev:], id: -1, atStart: atStart && prev == 0})
	}
	return dst
}

// isWordChar is the Rust regex crate's \w: alphabetic, marks, decimal
// digits, connector punctuation and the joiners.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.Is(unicode.Pc, r) || unicode.Is(unicode.Nl, r) ||
		unicode.Is(unicode.Other_Alphabetic, r) || r == 0x200C || r == 0x200D
}

func endsWithWord(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	return size > 0 && isWordChar(r)
}

func startsWithWord(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return size > 0 && isWordChar(r)
}

// trailingSpaceStart is where the run of white space ending s begins.
func trailingSpaceStart(s string) int {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.Is(unicode.White_Space, r) {
			break
		}
		i -= size
	}
	return i
}

// leadingSpaceLen is the byte length of the white space starting s.
func leadingSpaceLen(s string) int {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.Is(unicode.White_Space, r) {
			break
		}
		i += size
	}
	return i
}
