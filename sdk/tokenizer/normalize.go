package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// normalizer rewrites a piece of text before pre-tokenization.
type normalizer interface {
	normalize(s string) string
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

func (n normalizerSeq) normalize(s string) string {
	for _, x := range n {
		s = x.normalize(s)
	}
	return s
}

type prependNormalizer struct{ prepend string }

func (n prependNormalizer) normalize(s string) string {
	if s == "" {
		return s
	}
	return n.prepend + s
}

type replaceNormalizer struct {
	pattern textPattern
	content string
}

func (n *replaceNormalizer) normalize(s string) string {
	if n.pattern.re == nil {
		if n.pattern.literal == "" {
			return s
		}
		return strings.ReplaceAll(s, n.pattern.literal, n.content)
	}
	return replaceAll(&n.pattern, s, n.content)
}

// replaceAll replaces each match of p in s with content.
func replaceAll(p *textPattern, s, content string) string {
	var b strings.Builder
	prev := 0
	var stack []thread
	p.matches(s, &stack, func(start, end int) {
		b.WriteString(s[prev:start])
		b.WriteString(content)
		prev = end
	})
	if prev == 0 && b.Len() == 0 {
		return s
	}
	b.WriteString(s[prev:])
	return b.String()
}

type stripNormalizer struct{ left, right bool }

func (n stripNormalizer) normalize(s string) string {
	if n.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if n.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

type nfcNormalizer struct{}

func (nfcNormalizer) normalize(s string) string { return nfc(s) }

type byteLevelNormalizer struct{}

func (byteLevelNormalizer) normalize(s string) string { return byteLevelString(s) }

func parseNormalizer(field string, raw json.RawMessage) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(field, raw)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "Sequence":
		var v struct {
			Normalizers *[]json.RawMessage `json:"normalizers"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return nil, err
		}
		if v.Normalizers == nil {
			return nil, fieldErrf(field+".normalizers", "missing")
		}
		seq := normalizerSeq{}
		for i, sub := range *v.Normalizers {
			n, err := parseNormalizer(fmt.Sprintf("%s.normalizers[%d]", field, i), sub)
			if err != nil {
				return nil, err
			}
			if n == nil {
				return nil, fieldErrf(fmt.Sprintf("%s.normalizers[%d]", field, i), "null")
			}
			seq = append(seq, n)
		}
		return seq, nil
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
		var v struct {
			Pattern *patternJSON `json:"pattern"`
			Content *string      `json:"content"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return nil, err
		}
		if v.Pattern == nil || v.Content == nil {
			return nil, fieldErrf(field, "want pattern and content")
		}
		p, err := parsePattern(field+".pattern", *v.Pattern)
		if err != nil {
			return nil, err
		}
		return &replaceNormalizer{pattern: p, content: *v.Content}, nil
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
