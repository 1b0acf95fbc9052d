package punkt

import (
	"strings"
)

// Tokenizer splits text into sentences with a set of parameters.
type Tokenizer struct {
	p *Params
}

// NewTokenizer returns a tokenizer of p, which it does not change.
func NewTokenizer(p *Params) *Tokenizer { return &Tokenizer{p: p} }

// Sentences splits text as NLTK's PunktSentenceTokenizer.tokenize does
// (with realign_boundaries, as sent_tokenize calls it): each candidate
// sentence end (., ? or ! before white space or a non-word character)
// is decided on the words around it; the closing quotes and brackets
// after an end stay with its sentence. The sentences are substrings of
// text, in order; white space between them is left out, and so is the
// text's trailing white space.
func (tz *Tokenizer) Sentences(text string) []string {
	var out []string
	for _, s := range tz.realign(text, tz.slices(text)) {
		out = append(out, text[s[0]:s[1]])
	}
	return out
}

// endMatch is a candidate sentence end: the end character at byte at,
// followed by white space and the token starting at next (next < 0 when
// a non-word character follows it instead), afterEnd the end of what
// follows.
type endMatch struct {
	at, next, afterEnd int
}

// endCandidates finds every ., ? or ! that a non-word character, or
// white space and a token, follows.
func endCandidates(text string) []endMatch {
	var out []endMatch
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != '.' && c != '?' && c != '!' {
			continue
		}
		r, n := runeAt(text, i+1)
		switch {
		case n > 0 && nonWord(r):
			out = append(out, endMatch{at: i, next: -1, afterEnd: i + 1 + n})
		case n > 0 && pySpace(r):
			j := i + 1
			for {
				r, n := runeAt(text, j)
				if n == 0 || !pySpace(r) {
					break
				}
				j += n
			}
			if j == len(text) {
				continue
			}
			k := j
			for {
				r, n := runeAt(text, k)
				if n == 0 || pySpace(r) {
					break
				}
				k += n
			}
			out = append(out, endMatch{at: i, next: j, afterEnd: k})
		}
	}
	return out
}

// lastASCIISpace is the index of the last ASCII white space of s, 0
// when there is none (or it is the first byte).
func lastASCIISpace(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if asciiSpace(s[i]) {
			return i
		}
	}
	return 0
}

// contexts pairs each candidate end with its context, the word before
// it through the token after it. Of consecutive candidates whose words
// overlap ("acting!!! I") only the last is kept.
func contexts(text string) ([]endMatch, []string) {
	var ms []endMatch
	var ctx []string
	prevStart, prevStop := 0, 0
	var prev *endMatch
	emit := func() {
		ms = append(ms, *prev)
		ctx = append(ctx, text[prevStart:prevStop]+text[prev.at:prev.afterEnd])
	}
	cands := endCandidates(text)
	for i := range cands {
		m := &cands[i]
		start := lastASCIISpace(text[prevStop:m.at])
		if start != 0 {
			start += prevStop + 1
		} else {
			start = prevStart
		}
		if prev != nil && prevStop <= start {
			emit()
		}
		prev, prevStart, prevStop = m, start, m.at
	}
	if prev != nil {
		emit()
	}
	return ms, ctx
}

// slices are the sentences' spans before realignment.
func (tz *Tokenizer) slices(text string) [][2]int {
	var out [][2]int
	last := 0
	ms, ctx := contexts(text)
	for i, m := range ms {
		if !tz.containsBreak(ctx[i]) {
			continue
		}
		out = append(out, [2]int{last, m.at + 1})
		if m.next >= 0 {
			last = m.next
		} else {
			last = m.at + 1
		}
	}
	return append(out, [2]int{last, len(pyRStrip(text))})
}

// containsBreak reports whether a sentence break falls in text before
// its last token.
func (tz *Tokenizer) containsBreak(text string) bool {
	toks := tz.annotate(text)
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].sentBreak {
			return true
		}
	}
	return false
}

// annotate tokenizes text line by line and annotates its tokens in two
// passes.
func (tz *Tokenizer) annotate(text string) []*token {
	var toks []*token
	for line := range strings.SplitSeq(text, "\n") {
		for _, w := range words(line) {
			t := newToken(line[w[0]:w[1]])
			tz.firstPass(t)
			toks = append(toks, t)
		}
	}
	for i := 0; i+1 < len(toks); i++ {
		tz.secondPass(toks[i], toks[i+1])
	}
	return toks
}

// firstPass marks sentence end characters as breaks, runs of periods as
// ellipses, and a word ending in a period as an abbreviation when the
// parameters know it (or its last hyphenated part), as a break
// otherwise.
func (tz *Tokenizer) firstPass(t *token) {
	switch {
	case t.tok == "." || t.tok == "?" || t.tok == "!":
		t.sentBreak = true
	case t.isEllipsis():
		t.ellipsis = true
	case t.periodFinal && !strings.HasSuffix(t.tok, ".."):
		w := PyLower(t.tok[:len(t.tok)-1])
		if tz.p.Abbrev[w] || tz.p.Abbrev[w[strings.LastIndexByte(w, '-')+1:]] {
			t.abbr = true
		} else {
			t.sentBreak = true
		}
	}
}

// secondPass revises the decision on a word ending in a period from the
// word after it: a known collocation is no break; an abbreviation or an
// ellipsis before a word the orthographic heuristic or the frequent
// sentence starters call a sentence start is one; an initial or a number
// before a word that does not start sentences is none, nor an initial
// before a word only ever seen capitalized.
func (tz *Tokenizer) secondPass(t, next *token) {
	if !t.periodFinal {
		return
	}
	typ, nextTyp := t.typeNoPeriod(), next.typeNoSentPeriod()
	initial := t.isInitial()
	if tz.p.Collocations[[2]string{typ, nextTyp}] {
		t.sentBreak, t.abbr = false, true
		return
	}
	if (t.abbr || t.ellipsis) && !initial {
		if tz.ortho(next) == startsSentence {
			t.sentBreak = true
			return
		}
		if next.firstUpper() && tz.p.SentStarters[nextTyp] {
			t.sentBreak = true
			return
		}
	}
	if initial || typ == "##number##" {
		o := tz.ortho(next)
		if o == notStart {
			t.sentBreak, t.abbr = false, true
			return
		}
		if o == unknown && initial && next.firstUpper() && tz.p.Ortho[nextTyp]&orthoLC == 0 {
			t.sentBreak, t.abbr = false, true
		}
	}
}

// The orthographic heuristic's answers.
const (
	unknown = iota
	startsSentence
	notStart
)

// ortho decides from the orthographic contexts of t's type whether t
// starts a sentence: no punctuation does; a capitalized word seen in
// lower case and never capitalized inside a sentence does; a lower-case
// word seen capitalized, or never seen in lower case at a sentence's
// start, does not.
func (tz *Tokenizer) ortho(t *token) int {
	if len(t.tok) == 1 && strings.Contains(";:,.!?", t.tok) {
		return notStart
	}
	o := tz.p.Ortho[t.typeNoSentPeriod()]
	if t.firstUpper() && o&orthoLC != 0 && o&orthoMidUC == 0 {
		return startsSentence
	}
	if t.firstLower() && (o&orthoUC != 0 || o&orthoBegLC == 0) {
		return notStart
	}
	return unknown
}

// realign moves the closing quotes and brackets that start a sentence
// (before white space, "--" or the end) to the end of the one before.
func (tz *Tokenizer) realign(text string, spans [][2]int) [][2]int {
	var out [][2]int
	realign := 0
	sub := func(s [2]int) string {
		if s[1] <= s[0] {
			return ""
		}
		return text[s[0]:s[1]]
	}
	for i, s := range spans {
		s[0] += realign
		if i+1 == len(spans) {
			if sub(s) != "" {
				out = append(out, s)
			}
			break
		}
		next := spans[i+1]
		if closing, end := closingRun(sub(next)); end > 0 {
			out = append(out, [2]int{s[0], next[0] + closing})
			realign = end
			continue
		}
		realign = 0
		if sub(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// closingRun matches the shortest run of closing quotes and brackets at
// the start of s that white space (taken along), "--" or the end
// follows: closing is the run's length, end the match's; 0, 0 when none.
func closingRun(s string) (closing, end int) {
	for i := 0; i < len(s) && strings.IndexByte(`"')]}`, s[i]) >= 0; i++ {
		j := i + 1
		r, n := runeAt(s, j)
		switch {
		case n == 0 || strings.HasPrefix(s[j:], "--"):
			return j, j
		case pySpace(r):
			for n > 0 && pySpace(r) {
				j += n
				r, n = runeAt(s, j)
			}
			return i + 1, j
		}
	}
	return 0, 0
}
