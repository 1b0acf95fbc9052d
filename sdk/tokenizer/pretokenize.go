package tokenizer

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// preTokenizer cuts pieces of normalized text into the words the model
// tokenizes one by one. Each appends to dst the pieces it makes of in
// (which it may not modify) and returns dst; empty pieces are dropped.
type preTokenizer interface {
	split(dst, in []piece, sc *scratch) []piece
}

// splitBehavior is the library's SplitDelimiterBehavior.
type splitBehavior uint8

const (
	behaviorRemoved splitBehavior = iota
	behaviorIsolated
	behaviorMergedWithPrevious
	behaviorMergedWithNext
	behaviorContiguous
)

var behaviors = map[string]splitBehavior{
	"Removed": behaviorRemoved, "Isolated": behaviorIsolated, "MergedWithPrevious": behaviorMergedWithPrevious,
	"MergedWithNext": behaviorMergedWithNext, "Contiguous": behaviorContiguous,
}

// span is a part of a piece: [start, end) and whether the pattern matched it.
type span struct {
	start, end int
	match      bool
}

// splitSpans applies behavior to the pattern's spans over s (matches and
// the gaps between them) and appends the pieces kept.
func splitSpans(dst []piece, p piece, spans []span, behavior splitBehavior) []piece {
	emit := func(start, end int) {
		if start < end {
			dst = append(dst, piece{text: p.text[start:end], id: -1, atStart: p.atStart && start == 0})
		}
	}
	switch behavior {
	case behaviorRemoved:
		for _, sp := range spans {
			if !sp.match {
				emit(sp.start, sp.end)
			}
		}
		return dst
	case behaviorIsolated:
		for _, sp := range spans {
			emit(sp.start, sp.end)
		}
		return dst
	}
	// The merging behaviors fold spans together as the library does.
	type cut struct{ start, end int }
	var out []cut
	switch behavior {
	case behaviorContiguous:
		prevMatch := false
		for _, sp := range spans {
			if sp.match == prevMatch && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, cut{sp.start, sp.end})
			}
			prevMatch = sp.match
		}
	case behaviorMergedWithPrevious:
		prevMatch := false
		for _, sp := range spans {
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, cut{sp.start, sp.end})
			}
			prevMatch = sp.match
		}
	case behaviorMergedWithNext:
		prevMatch := false
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].start = sp.start
			} else {
				out = append(out, cut{sp.start, sp.end})
			}
			prevMatch = sp.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	for _, c := range out {
		emit(c.start, c.end)
	}
	return dst
}

// spansOf lists the pattern's matches in s and the gaps between them, as
// the library's find_matches.
func spansOf(spans []span, s string, p *textPattern, invert bool, stack *[]thread) []span {
	spans = spans[:0]
	prev := 0
	p.matches(s, stack, func(start, end int) {
		if prev != start {
			spans = append(spans, span{prev, start, invert})
		}
		spans = append(spans, span{start, end, !invert})
		prev = end
	})
	if prev != len(s) {
		spans = append(spans, span{prev, len(s), invert})
	}
	return spans
}

type splitPre struct {
	pattern  textPattern
	behavior splitBehavior
	invert   bool
}

func (sp *splitPre) split(dst, in []piece, sc *scratch) []piece {
	for _, p := range in {
		sc.spans = spansOf(sc.spans, p.text, &sp.pattern, sp.invert, &sc.stack)
		dst = splitSpans(dst, p, sc.spans, sp.behavior)
	}
	return dst
}

type preSeq []preTokenizer

func (ps preSeq) split(dst, in []piece, sc *scratch) []piece {
	if len(ps) == 0 {
		return append(dst, in...)
	}
	cur := append(sc.preA[:0], in...)
	for _, p := range ps {
		next := p.split(sc.preB[:0], cur, sc)
		sc.preA, sc.preB = next, cur
		cur = next
	}
	return append(dst, cur...)
}

// gpt2Pattern is the ByteLevel pre-tokenizer's own pattern (use_regex).
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// byteLevelPre is the ByteLevel pre-tokenizer. When it is the last step
// (mapBytes false), the model reads each piece's bytes directly instead of
// their byte-level characters.
type byteLevelPre struct {
	addPrefixSpace bool
	useRegex       *splitPre
	mapBytes       bool
}

func (b *byteLevelPre) split(dst, in []piece, sc *scratch) []piece {
	for _, p := range in {
		if b.addPrefixSpace && !strings.HasPrefix(p.text, " ") {
			p.text = " " + p.text
		}
		start := len(dst)
		if b.useRegex != nil {
			dst = b.useRegex.split(dst, []piece{p}, sc)
		} else if p.text != "" {
			dst = append(dst, p)
		}
		if b.mapBytes {
			for i := start; i < len(dst); i++ {
				dst[i].text = byteLevelString(dst[i].text)
			}
		}
	}
	return dst
}

// metaspacePre is the Metaspace pre-tokenizer: spaces become the
// replacement, which is prepended per prepend_scheme, and (split) each
// word starts at a replacement.
type metaspacePre struct {
	replacement rune
	rep         string
	scheme      string // "always", "first", "never"
	splitWords  bool
}

func (m *metaspacePre) split(dst, in []piece, sc *scratch) []piece {
	for _, p := range in {
		s := strings.ReplaceAll(p.text, " ", m.rep)
		switch m.scheme {
		case "always":
			if !strings.HasPrefix(s, m.rep) {
				s = m.rep + s
			}
		case "first":
			if !strings.HasPrefix(s, m.rep) && p.atStart {
				s = m.rep + s
			}
		}
		q := piece{text: s, id: -1, atStart: p.atStart}
		if !m.splitWords {
			if s != "" {
				dst = append(dst, q)
			}
			continue
		}
		sc.spans = sc.spans[:0]
		prev := 0
		for i, r := range s {
			if r != m.replacement {
				continue
			}
			if prev < i {
				sc.spans = append(sc.spans, span{prev, i, false})
			}
			sc.spans = append(sc.spans, span{i, i + utf8.RuneLen(r), true})
			prev = i + utf8.RuneLen(r)
		}
		if prev < len(s) {
			sc.spans = append(sc.spans, span{prev, len(s), false})
		}
		dst = splitSpans(dst, q, sc.spans, behaviorMergedWithNext)
	}
	return dst
}

// digitsPre is the Digits pre-tokenizer: runs of ASCII digits (each
// digit alone with individual_digits) isolated.
type digitsPre struct{ individual bool }

func (d digitsPre) split(dst, in []piece, sc *scratch) []piece {
	for _, p := range in {
		sc.spans = sc.spans[:0]
		prev := 0
		for i, r := range p.text {
			if !isNumeric(r) {
				continue
			}
			n := utf8.RuneLen(r)
			if !d.individual && len(sc.spans) > 0 && sc.spans[len(sc.spans)-1].match && sc.spans[len(sc.spans)-1].end == i {
				sc.spans[len(sc.spans)-1].end = i + n
				prev = i + n
				continue
			}
			if prev < i {
				sc.spans = append(sc.spans, span{prev, i, false})
			}
			sc.spans = append(sc.spans, span{i, i + n, true})
			prev = i + n
		}
		if prev < len(p.text) {
			sc.spans = append(sc.spans, span{prev, len(p.text), false})
		}
		dst = splitSpans(dst, p, sc.spans, behaviorIsolated)
	}
	return dst
}

// isNumeric is Rust's char::is_numeric: the N categories.
func isNumeric(r rune) bool { return unicode.Is(category("N"), r) }

// parsePreTokenizerTop parses the file's pre_tokenizer; byteDomain says
// its last step is a ByteLevel whose mapping the model does itself.
func parsePreTokenizerTop(raw json.RawMessage) (preTokenizer, bool, error) {
	pt, err := parsePreTokenizer("pre_tokenizer", raw)
	if err != nil || pt == nil {
		return pt, false, err
	}
	last := pt
	if seq, ok := pt.(preSeq); ok && len(seq) > 0 {
		last = seq[len(seq)-1]
	}
	if bl, ok := last.(*byteLevelPre); ok {
		bl.mapBytes = false
		return pt, true, nil
	}
	return pt, false, nil
}

func parsePreTokenizer(field string, raw json.RawMessage) (preTokenizer, error) {
	typ, err := componentType(field, raw)
	if typ == "" {
		return nil, err
	}
	switch typ {
	case "Sequence":
		seq, err := parseList(field, "pretokenizers", raw, parsePreTokenizer)
		return preSeq(seq), err
	case "Split":
		var v struct {
			Pattern  *patternJSON `json:"pattern"`
			Behavior *string      `json:"behavior"`
			Invert   *bool        `json:"invert"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return nil, err
		}
		if v.Pattern == nil || v.Behavior == nil || v.Invert == nil {
			return nil, fieldErrf(field, "want pattern, behavior and invert")
		}
		p, err := parsePattern(field+".pattern", *v.Pattern)
		if err != nil {
			return nil, err
		}
		b, ok := behaviors[*v.Behavior]
		if !ok {
			return nil, fieldErrf(field+".behavior", "%q: want Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous", *v.Behavior)
		}
		return &splitPre{pattern: p, behavior: b, invert: *v.Invert}, nil
	case "ByteLevel":
		var v struct {
			AddPrefixSpace *bool `json:"add_prefix_space"`
			TrimOffsets    *bool `json:"trim_offsets"`
			UseRegex       *bool `json:"use_regex"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return nil, err
		}
		if v.AddPrefixSpace == nil || v.TrimOffsets == nil {
			return nil, fieldErrf(field, "want add_prefix_space and trim_offsets")
		}
		b := &byteLevelPre{addPrefixSpace: *v.AddPrefixSpace, mapBytes: true}
		if v.UseRegex == nil || *v.UseRegex {
			re, err := compileRegex(gpt2Pattern)
			if err != nil {
				return nil, err
			}
			b.useRegex = &splitPre{pattern: textPattern{re: re}, behavior: behaviorIsolated}
		}
		return b, nil
	case "Metaspace":
		return parseMetaspaceJSON(field, raw)
	case "Digits":
		var v struct {
			Individual bool `json:"individual_digits"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return nil, err
		}
		return digitsPre{v.Individual}, nil
	}
	return nil, fieldErrf(field+".type", "pre-tokenizer %q is not supported (Split, ByteLevel, Metaspace, Digits, Sequence are)", typ)
}

// parseMetaspaceJSON reads a Metaspace pre-tokenizer or decoder.
func parseMetaspaceJSON(field string, raw json.RawMessage) (*metaspacePre, error) {
	var v struct {
		Replacement    *string `json:"replacement"`
		AddPrefixSpace *bool   `json:"add_prefix_space"`
		PrependScheme  *string `json:"prepend_scheme"`
		Split          *bool   `json:"split"`
	}
	if err := unmarshal(field, raw, &v); err != nil {
		return nil, err
	}
	m, err := parseMetaspace(field, v.Replacement, v.AddPrefixSpace, v.PrependScheme)
	if err != nil {
		return nil, err
	}
	m.splitWords = v.Split == nil || *v.Split
	return m, nil
}

// parseMetaspace reads what the Metaspace pre-tokenizer and decoder share.
func parseMetaspace(field string, replacement *string, addPrefixSpace *bool, scheme *string) (*metaspacePre, error) {
	if replacement == nil || utf8.RuneCountInString(*replacement) != 1 {
		return nil, fieldErrf(field+".replacement", "want one character")
	}
	r, _ := utf8.DecodeRuneInString(*replacement)
	m := &metaspacePre{replacement: r, rep: *replacement, scheme: "always"}
	if scheme != nil {
		switch *scheme {
		case "always", "first", "never":
			m.scheme = *scheme
		default:
			return nil, fieldErrf(field+".prepend_scheme", "%q: want always, first or never", *scheme)
		}
	}
	if addPrefixSpace != nil && !*addPrefixSpace {
		if m.scheme != "never" {
			return nil, fieldErrf(field+".add_prefix_space", "false does not match prepend_scheme %q", m.scheme)
		}
		m.scheme = "never"
	}
	return m, nil
}
