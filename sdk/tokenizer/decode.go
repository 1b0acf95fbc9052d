package tokenizer

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// decoder turns the tokens of ids into text, as the library's decoders'
// decode_chain: a list of strings in, a list out, joined at the end.
type decoder interface {
	decodeChain(tokens []string) []string
}

func (t *Tokenizer) decode(ids []int32, skipSpecial bool) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		if id < 0 || int(id) >= len(t.tokens) {
			continue
		}
		ti := &t.tokens[id]
		if !ti.ok || skipSpecial && ti.special {
			continue
		}
		toks = append(toks, ti.text)
	}
	if t.decoder == nil {
		return strings.Join(toks, " ")
	}
	return strings.Join(t.decoder.decodeChain(toks), "")
}

type decoderSeq []decoder

func (d decoderSeq) decodeChain(toks []string) []string {
	for _, x := range d {
		toks = x.decodeChain(toks)
	}
	return toks
}

// byteLevelDecoder maps byte-level characters back to bytes (a token with
// another character stays as it is) and the whole to text, each maximal
// invalid UTF-8 sequence replaced by U+FFFD.
type byteLevelDecoder struct{}

func (byteLevelDecoder) decodeChain(toks []string) []string {
	var b []byte
	for _, tok := range toks {
		start := len(b)
		for _, r := range tok {
			c, ok := charByte(r)
			if !ok {
				b = append(b[:start], tok...)
				break
			}
			b = append(b, c)
		}
	}
	return []string{lossyUTF8(b)}
}

// lossyUTF8 is Rust's String::from_utf8_lossy: each maximal prefix of a
// valid sequence that cannot be completed, and each byte that cannot
// start one, becomes one U+FFFD.
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		i += invalidPrefixLen(b[i:])
		out = append(out, "\uFFFD"...)
	}
	return string(out)
}

// invalidPrefixLen is the length of the maximal subpart at the start of b
// (which does not start a valid sequence): the first byte and the
// continuation bytes that still fit it, at least 1.
func invalidPrefixLen(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF) // the second byte's range
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC || c == 0xEE || c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k == 0 && (x < lo || x > hi) || k > 0 && (x < 0x80 || x > 0xBF) {
			break
		}
		n++
	}
	return n
}

// metaspaceDecoder turns the replacement back into spaces; in the first
// token it removes them unless prepend_scheme is "never".
type metaspaceDecoder struct {
	replacement rune
	strip       bool
}

func (m metaspaceDecoder) decodeChain(toks []string) []string {
	out := make([]string, len(toks))
	for i, tok := range toks {
		var b strings.Builder
		for _, r := range tok {
			switch {
			case r != m.replacement:
				b.WriteRune(r)
			case i == 0 && m.strip:
			default:
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
}

type replaceDecoder struct {
	pattern textPattern
	content string
}

func (d *replaceDecoder) decodeChain(toks []string) []string {
	out := make([]string, len(toks))
	for i, tok := range toks {
		out[i], _ = replaceAll(&d.pattern, tok, d.content)
	}
	return out
}

// byteFallbackDecoder turns runs of <0xNN> tokens into their bytes' text,
// or one U+FFFD per token when the run is not UTF-8.
type byteFallbackDecoder struct{}

func (byteFallbackDecoder) decodeChain(toks []string) []string {
	out := make([]string, 0, len(toks))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, tok := range toks {
		if v, ok := byteFallbackValue(tok); ok {
			pending = append(pending, v)
			continue
		}
		flush()
		out = append(out, tok)
	}
	flush()
	return out
}

// byteFallbackValue reads a <0xNN> token as the library does (Rust's
// u8::from_str_radix, which takes a leading '+').
func byteFallbackValue(tok string) (byte, bool) {
	if len(tok) != 6 || !strings.HasPrefix(tok, "<0x") || tok[5] != '>' {
		return 0, false
	}
	d := tok[3:5]
	if d[0] == '+' {
		d = d[1:]
	}
	v := 0
	for i := 0; i < len(d); i++ {
		c := d[i]
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v = v*16 + int(c-'A') + 10
		default:
			return 0, false
		}
	}
	return byte(v), true
}

type fuseDecoder struct{}

func (fuseDecoder) decodeChain(toks []string) []string { return []string{strings.Join(toks, "")} }

// stripDecoder removes up to start leading and stop trailing content
// characters from each token.
type stripDecoder struct {
	content     rune
	start, stop int
}

func (d stripDecoder) decodeChain(toks []string) []string {
	out := make([]string, len(toks))
	for i, tok := range toks {
		chars := []rune(tok)
		lo := 0
		for k := 0; k < d.start && k < len(chars); k++ {
			if chars[k] != d.content {
				break
			}
			lo = k + 1
		}
		hi := len(chars)
		for k := 0; k < d.stop && k < len(chars); k++ {
			idx := len(chars) - k - 1
			if chars[idx] != d.content {
				break
			}
			hi = idx
		}
		if hi < lo {
			hi = lo
		}
		out[i] = string(chars[lo:hi])
	}
	return out
}

func parseDecoder(field string, raw json.RawMessage) (decoder, error) {
	typ, err := componentType(field, raw)
	if typ == "" {
		return nil, err
	}
	switch typ {
	case "Sequence":
		seq, err := parseList(field, "decoders", raw, parseDecoder)
		return decoderSeq(seq), err
	case "ByteLevel":
		return byteLevelDecoder{}, nil
	case "Metaspace":
		m, err := parseMetaspaceJSON(field, raw)
		if err != nil {
			return nil, err
		}
		return metaspaceDecoder{replacement: m.replacement, strip: m.scheme != "never"}, nil
	case "Replace":
		p, content, err := parseReplace(field, raw)
		if err != nil {
			return nil, err
		}
		return &replaceDecoder{pattern: p, content: content}, nil
	case "ByteFallback":
		return byteFallbackDecoder{}, nil
	case "Fuse":
		return fuseDecoder{}, nil
	case "Strip":
		var v struct {
			Content *string `json:"content"`
			Start   *int    `json:"start"`
			Stop    *int    `json:"stop"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return nil, err
		}
		if v.Content == nil || utf8.RuneCountInString(*v.Content) != 1 {
			return nil, fieldErrf(field+".content", "want one character")
		}
		if v.Start == nil || v.Stop == nil || *v.Start < 0 || *v.Stop < 0 {
			return nil, fieldErrf(field, "want start and stop counts")
		}
		r, _ := utf8.DecodeRuneInString(*v.Content)
		return stripDecoder{content: r, start: *v.Start, stop: *v.Stop}, nil
	}
	return nil, fieldErrf(field+".type", "decoder %q is not supported (ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, Sequence are)", typ)
}
