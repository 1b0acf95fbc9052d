package tokenizer

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// bpe is the BPE model: a vocabulary and ranked merges.
type bpe struct {
	vocab       map[string]int32 // tokens as tokenizer.json writes them
	merges      map[uint64]mergeRule
	unk         int32 // -1: none
	fuseUnk     bool
	byteFB      bool
	ignoreMerge bool
	prefix      string // continuing_subword_prefix
	suffix      string // end_of_word_suffix

	// The byte domain (the pre-tokenizer ends with ByteLevel): words are raw
	// bytes, byteID[b] is the id of b's byte-level character (-1: none) and
	// rawVocab the vocabulary's byte-level tokens as raw bytes.
	byteDomain bool
	byteID     [256]int32
	rawVocab   map[string]int32

	seed  maphash.Seed
	cache []atomic.Pointer[cacheEntry]
}

type mergeRule struct {
	rank, id int32
}

type cacheEntry struct {
	word string
	ids  []int32
}

// cacheSize is the number of words the per-tokenizer cache holds: a word
// may sit in either of the two slots of its hash's pair, and a new one
// takes the pair's empty slot or, the hash decides which, replaces one.
const cacheSize = 1 << 15

// maxCachedWord is the longest word (bytes) cached, as the library's.
const maxCachedWord = 256

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

type modelJSON struct {
	Type         *string          `json:"type"`
	Dropout      *float64         `json:"dropout"`
	UnkToken     *string          `json:"unk_token"`
	Prefix       *string          `json:"continuing_subword_prefix"`
	Suffix       *string          `json:"end_of_word_suffix"`
	FuseUnk      *bool            `json:"fuse_unk"`
	ByteFallback *bool            `json:"byte_fallback"`
	IgnoreMerges *bool            `json:"ignore_merges"`
	Vocab        map[string]int64 `json:"vocab"`
	Merges       json.RawMessage  `json:"merges"`
}

func parseModel(field string, raw json.RawMessage, byteDomain bool) (*bpe, error) {
	var m modelJSON
	if err := unmarshal(field, raw, &m); err != nil {
		return nil, err
	}
	if m.Type != nil && *m.Type != "BPE" {
		return nil, fieldErrf(field+".type", "model %q is not supported (BPE is)", *m.Type)
	}
	if m.Vocab == nil {
		return nil, fieldErrf(field+".vocab", "missing")
	}
	if m.Merges == nil {
		return nil, fieldErrf(field+".merges", "missing")
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return nil, fieldErrf(field+".dropout", "%g: not supported (BPE dropout is random)", *m.Dropout)
	}
	b := &bpe{vocab: make(map[string]int32, len(m.Vocab)), unk: -1, seed: maphash.MakeSeed(),
		cache: make([]atomic.Pointer[cacheEntry], cacheSize)}
	for tok, id := range m.Vocab {
		if id < 0 || id > maxTokenID {
			return nil, fieldErrf(fmt.Sprintf("%s.vocab[%q]", field, tok), "id %d out of range [0, %d]", id, maxTokenID)
		}
		b.vocab[tok] = int32(id)
	}
	if m.UnkToken != nil {
		id, ok := b.vocab[*m.UnkToken]
		if !ok {
			return nil, fieldErrf(field+".unk_token", "%q is not in the vocabulary", *m.UnkToken)
		}
		b.unk = id
	}
	b.fuseUnk = m.FuseUnk != nil && *m.FuseUnk
	b.byteFB = m.ByteFallback != nil && *m.ByteFallback
	b.ignoreMerge = m.IgnoreMerges != nil && *m.IgnoreMerges
	if m.Prefix != nil {
		b.prefix = *m.Prefix
	}
	if m.Suffix != nil {
		b.suffix = *m.Suffix
	}
	pairs, err := parseMerges(field+".merges", m.Merges)
	if err != nil {
		return nil, err
	}
	b.merges = make(map[uint64]mergeRule, len(pairs))
	for i, p := range pairs {
		f := mergeAt{field, i}
		a, ok := b.vocab[p[0]]
		if !ok {
			return nil, fieldErrf(f.String(), "%q is not in the vocabulary", p[0])
		}
		c, ok := b.vocab[p[1]]
		if !ok {
			return nil, fieldErrf(f.String(), "%q is not in the vocabulary", p[1])
		}
		second := p[1]
		if b.prefix != "" && !strings.HasPrefix(second, b.prefix) {
			return nil, fieldErrf(f.String(), "%q does not start with continuing_subword_prefix %q", second, b.prefix)
		}
		if b.prefix != "" {
			second = second[len(b.prefix):]
		}
		id, ok := b.vocab[p[0]+second]
		if !ok {
			return nil, fieldErrf(f.String(), "the merged token %q is not in the vocabulary", p[0]+second)
		}
		// A pair listed twice keeps its last rank, as the library's map.
		b.merges[pairKey(a, c)] = mergeRule{rank: int32(i), id: id}
	}
	b.byteDomain = byteDomain && b.prefix == "" && b.suffix == ""
	if b.byteDomain {
		for c := range 256 {
			id, ok := b.vocab[byteCharUTF8[c]]
			if !ok {
				id = -1
			}
			b.byteID[c] = id
		}
		if b.ignoreMerge {
			b.rawVocab = make(map[string]int32, len(b.vocab))
			for tok, id := range b.vocab {
				if raw, ok := fromByteLevel(tok); ok {
					b.rawVocab[raw] = id
				}
			}
		}
	}
	return b, nil
}

// mergeAt names merge i in an error, formatted only when needed.

type mergeAt struct {
	field string
	i     int
}

func (m mergeAt) String() string { return fmt.Sprintf("%s.merges[%d]", m.field, m.i) }

// parseMerges reads merges as ["a b", ...] (the older form) or
// [["a", "b"], ...].
func parseMerges(field string, raw json.RawMessage) ([][2]string, error) {
	trimmed := strings.TrimLeft(string(raw), " \t\r\n")
	if strings.HasPrefix(trimmed, "[") && strings.HasPrefix(strings.TrimLeft(trimmed[1:], " \t\r\n"), "[") {
		var pairs [][]string
		if err := unmarshal(field, raw, &pairs); err != nil {
			return nil, err
		}
		out := make([][2]string, len(pairs))
		for i, p := range pairs {
			if len(p) != 2 {
				return nil, fieldErrf(fmt.Sprintf("%s[%d]", field, i), "want a pair of tokens, have %d", len(p))
			}
			out[i] = [2]string{p[0], p[1]}
		}
		return out, nil
	}
	var lines []string
	if err := unmarshal(field, raw, &lines); err != nil {
		return nil, err
	}
	out := make([][2]string, len(lines))
	for i, l := range lines {
		a, b, ok := strings.Cut(l, " ")
		if !ok || strings.Contains(b, " ") {
			return nil, fieldErrf(fmt.Sprintf("%s[%d]", field, i), "%q: want two tokens separated by one space", l)
		}
		out[i] = [2]string{a, b}
	}
	return out, nil
}

// tokenize appends the ids of one word (a piece after pre-tokenization;
// raw bytes in the byte domain).
func (b *bpe) tokenize(dst []int32, word string, sc *scratch) []int32 {
	if word == "" {
		return dst
	}
	cacheable := len(word) < maxCachedWord
	var slot *atomic.Pointer[cacheEntry]
	if cacheable {
		h := maphash.String(b.seed, word)
		pair := b.cache[h&(cacheSize-2) : h&(cacheSize-2)+2]
		e0, e1 := pair[0].Load(), pair[1].Load()
		switch {
		case e0 != nil && e0.word == word:
			return append(dst, e0.ids...)
		case e1 != nil && e1.word == word:
			return append(dst, e1.ids...)
		case e0 == nil:
			slot = &pair[0]
		case e1 == nil:
			slot = &pair[1]
		default:
			slot = &pair[h>>63]
		}
	}
	start := len(dst)
	if id, ok := b.wholeWord(word); ok {
		dst = append(dst, id)
	} else {
		dst = b.mergeWord(dst, word, sc)
	}
	if cacheable {
		slot.Store(&cacheEntry{word: strings.Clone(word), ids: append([]int32(nil), dst[start:]...)})
	}
	return dst
}

// wholeWord is ignore_merges: a word the vocabulary has is one token.
func (b *bpe) wholeWord(word string) (int32, bool) {
	if !b.ignoreMerge {
		return 0, false
	}
	vocab := b.vocab
	if b.byteDomain {
		vocab = b.rawVocab
	}
	id, ok := vocab[word]
	return id, ok
}

// symbol is a part of a word during merging: a token id, the byte length
// it covers (0 once merged into its left neighbour) and its neighbours.
type symbol struct {
	id         int32
	prev, next int32
	size       int32
}

// mergeWord splits word into its initial symbols (characters, or bytes in
// the byte domain; byte fallback and unknown tokens as the library
// handles them) and merges them by rank.
func (b *bpe) mergeWord(dst []int32, word string, sc *scratch) []int32 {
	syms := sc.syms[:0]
	add := func(id int32, size int) {
		n := int32(len(syms))
		if n > 0 {
			syms[n-1].next = n
		}
		syms = append(syms, symbol{id: id, prev: n - 1, next: -1, size: int32(size)})
	}
	unkID, unkSize := int32(-1), 0
	flushUnk := func() {
		if unkID >= 0 {
			add(unkID, unkSize)
			unkID = -1
		}
	}
	unit := func(id int32, unitText string, size int) {
		if id >= 0 {
			flushUnk()
			add(id, size)
			return
		}
		if b.byteFB {
			ok := true
			for i := 0; i < len(unitText) && ok; i++ {
				_, ok = b.vocab[byteToken(unitText[i])]
			}
			if ok {
				for i := 0; i < len(unitText); i++ {
					add(b.vocab[byteToken(unitText[i])], 1)
				}
				return
			}
		}
		if b.unk >= 0 {
			switch {
			case unkID >= 0 && b.fuseUnk:
				unkSize += size
			case unkID >= 0:
				add(unkID, unkSize)
				unkID, unkSize = b.unk, size
			default:
				unkID, unkSize = b.unk, size
			}
		}
	}
	if b.byteDomain {
		for i := 0; i < len(word); i++ {
			unit(b.byteID[word[i]], byteCharUTF8[word[i]], 1)
		}
	} else {
		for i := 0; i < len(word); {
			_, size := utf8.DecodeRuneInString(word[i:])
			ch := word[i : i+size]
			key := ch
			if b.prefix != "" && i > 0 {
				key = b.prefix + key
			}
			if b.suffix != "" && i+size == len(word) {
				key += b.suffix
			}
			id, ok := b.vocab[key]
			if !ok {
				id = -1
			}
			unit(id, key, size)
			i += size
		}
	}
	flushUnk()
	syms = b.mergeAll(syms, sc)
	for _, s := range syms {
		if s.size != 0 {
			dst = append(dst, s.id)
		}
	}
	sc.syms = syms
	return dst
}

// byteToken is the byte-fallback token of b, "<0x0A>" for a newline.
func byteToken(b byte) string { return byteTokens[b] }

var byteTokens = func() (t [256]string) {
	for b := range 256 {
		t[b] = fmt.Sprintf("<0x%02X>", b)
	}
	return t
}()

// mergeAll applies the merges: always the pair of lowest rank, the
// leftmost of equals, until no pair has a merge (the library's merge_all,
// a heap of candidate pairs checked when taken).
func (b *bpe) mergeAll(syms []symbol, sc *scratch) []symbol {
	if len(syms) < 2 {
		return syms
	}
	h := sc.heap[:0]
	for i := 0; i+1 < len(syms); i++ {
		if m, ok := b.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			h = heapPush(h, candidate{rank: m.rank, pos: int32(i), id: m.id})
		}
	}
	for len(h) > 0 {
		var top candidate
		top, h = heapPop(h)
		s := &syms[top.pos]
		if s.size == 0 || s.next < 0 {
			continue
		}
		next := s.next
		right := syms[next]
		if m, ok := b.merges[pairKey(s.id, right.id)]; !ok || m.id != top.id {
			continue
		}
		s.id = top.id
		s.size += right.size
		s.next = right.next
		syms[next].size = 0
		if right.next >= 0 {
			syms[right.next].prev = top.pos
		}
		if s.prev >= 0 {
			if m, ok := b.merges[pairKey(syms[s.prev].id, s.id)]; ok {
				h = heapPush(h, candidate{rank: m.rank, pos: s.prev, id: m.id})
			}
		}
		if s.next >= 0 {
			if m, ok := b.merges[pairKey(s.id, syms[s.next].id)]; ok {
				h = heapPush(h, candidate{rank: m.rank, pos: top.pos, id: m.id})
			}
		}
	}
	sc.heap = h
	return syms
}

// candidate is a pair that may merge: its rank, its left symbol and the
// token it makes.
type candidate struct {
	rank, pos, id int32
}

func less(a, b candidate) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

func heapPush(h []candidate, c candidate) []candidate {
	h = append(h, c)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

func heapPop(h []candidate) (candidate, []candidate) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(h[r], h[l]) {
			m = r
		}
		if !less(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return top, h
}
