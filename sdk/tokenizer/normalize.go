package tokenizer

import (
	"encoding/json"
	"strings"
	"unicode"
)

// normalizer rewrites a piece of text before pre-tokenization. kept
// reports whether the result still starts where s did (nothing removed
// from its start), which Metaspace's prepend_scheme "first" reads.
type normalizer interface {
	normalize(s string) (out string, kept bool)
}

// patternJSON is a Split or Replace pattern: {"String": s} or {"Regex": re}.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// textPattern is a compiled pattern: a literal string or a regex.
type textPattern struct {
	literal string
	re      *regex
}

// parseReplace reads a Replace normalizer's or decoder's pattern and
// content.
func parseReplace(field string, raw json.RawMessage) (textPattern, string, error) {
	var v struct {
		Pattern *patternJSON `json:"pattern"`
		Content *string      `json:"content"`
	}
	if err := unmarshal(field, raw, &v); err != nil {
		return textPattern{}, "", err
	}
	if v.Pattern == nil || v.Content == nil {
		return textPattern{}, "", fieldErrf(field, "want pattern and content")
	}
	p, err := parsePattern(field+".pattern", *v.Pattern)
	return p, *v.Content, err
}

func parsePattern(field string, p patternJSON) (textPattern, error) {
	switch {
	case p.String != nil && p.Regex == nil:
		return textPattern{literal: *p.String}, nil
	case p.Regex != nil && p.String == nil:
		re, err := compileRegex(*p.Regex)
		if err != nil {
			return textPattern{}, fieldErr(field+".Regex", err)
		}
		return textPattern{re: re}, nil
	}
	return textPattern{}, fieldErrf(field, "want one of String or Regex")
}

// matches calls fn with each match of the pattern in s, as the library's
// find_matches (an empty literal matches nothing).
func (p *textPattern) matches(s string, stack *[]thread, fn func(start, end int)) {
	if p.re != nil {
		p.re.findAll(s, stack, fn)
		return
	}
	if p.literal == "" {
		return
	}
	for i := 0; ; {
		j := strings.Index(s[i:], p.literal)
		if j < 0 {
			return
		}
		fn(i+j, i+j+len(p.literal))
		i += j + len(p.literal)
	}
}

type normalizerSeq []normalizer

func (n normalizerSeq) normalize(s string) (string, bool) {
	kept := true
	for _, x := range n {
		var k bool
		s, k = x.normalize(s)
		kept = kept && k
	}
	return s, kept
}

type prependNormalizer struct{ prepend string }

func (n prependNormalizer) normalize(s string) (string, bool) {
	if s == "" {
		return s, true
	}
	return n.prepend + s, true
}

type replaceNormalizer struct {
	pattern textPattern
	content string
}

func (n *replaceNormalizer) normalize(s string) (string, bool) {
	out, atStart := replaceAll(&n.pattern, s, n.content)
	return out, !atStart || n.content != ""
}

// replaceAll replaces each match of p in s with content; atStart reports
// a non-empty match at the start of s.
func replaceAll(p *textPattern, s, content string) (out string, atStart bool) {
	var b strings.Builder
	prev := 0
	var stack []thread
	p.matches(s, &stack, func(start, end int) {
		if start == 0 && end > 0 {
			atStart = true
		}
		b.WriteString(s[prev:start])
		b.WriteString(content)
		prev = end
	})
	if prev == 0 && b.Len() == 0 {
		return s, false
	}
	b.WriteString(s[prev:])
	return b.String(), atStart
}

type stripNormalizer struct{ left, right bool }

func (n stripNormalizer) normalize(s string) (string, bool) {
	kept := true
	if n.left {
		t := strings.TrimLeftFunc(s, unicode.IsSpace)
		kept = len(t) == len(s)
		s = t
	}
	if n.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s, kept
}

type nfcNormalizer struct{}

func (nfcNormalizer) normalize(s string) (string, bool) { return nfc(s), true }

type byteLevelNormalizer struct{}

func (byteLevelNormalizer) normalize(s string) (string, bool) { return byteLevelString(s), true }

func parseNormalizer(field string, raw json.RawMessage) (normalizer, error) {
	typ, err := componentType(field, raw)
	if typ == "" {
		return nil, err
	}
	switch typ {
	case "Sequence":
		seq, err := parseList(field, "normalizers", raw, parseNormalizer)
		return normalizerSeq(seq), err
	case "Prepend":
		var v struct {
			Prepend *string `json:"prepend"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return nil, err
		}
		if v.Prepend == nil {
			return nil, fieldErrf(field+".prepend", "missing")
		}
		return prependNormalizer{*v.Prepend}, nil
	case "Replace":
		p, content, err := parseReplace(field, raw)
		if err != nil {
			return nil, err
		}
		return &replaceNormalizer{pattern: p, content: content}, nil
	case "Strip":
		var v struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return nil, err
		}
		return stripNormalizer{v.Left, v.Right}, nil
	case "NFC":
		return nfcNormalizer{}, nil
	case "ByteLevel":
		return byteLevelNormalizer{}, nil
	}
	return nil, fieldErrf(field+".type", "normalizer %q is not supported (NFC, Prepend, Replace, Strip, ByteLevel, Sequence are)", typ)
}
