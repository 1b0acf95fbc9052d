package tokenizer

import "unicode/utf8"

// encode runs the library's pipeline: added tokens split out of the raw
// text, each other piece normalized and split at the normalized added
// tokens, pre-tokenized into words, each word through the model, then the
// post-processor's special tokens.
func (t *Tokenizer) encode(dst []int32, text string, s encodeSettings) []int32 {
	if !utf8.ValidString(text) {
		text = validUTF8(text)
	}
	sc := t.getScratch()
	defer t.putScratch(sc)
	if s.addSpecial && t.post != nil {
		dst = append(dst, t.post.prefix...)
	}
	sc.pieces = t.added.splitAdded(sc.pieces[:0], text, true, &t.added.raw)
	sc.norm = sc.norm[:0]
	for _, p := range sc.pieces {
		if p.id >= 0 {
			sc.norm = append(sc.norm, p)
			continue
		}
		if t.normalizer != nil {
			var kept bool
			p.text, kept = t.normalizer.normalize(p.text)
			p.atStart = p.atStart && kept
		}
		if p.text == "" {
			continue
		}
		sc.norm = t.added.splitAdded(sc.norm, p.text, p.atStart, &t.added.norm)
	}
	for i := 0; i < len(sc.norm); {
		if sc.norm[i].id >= 0 {
			dst = append(dst, sc.norm[i].id)
			i++
			continue
		}
		j := i
		for j < len(sc.norm) && sc.norm[j].id < 0 {
			j++
		}
		words := sc.norm[i:j]
		if t.pre != nil {
			sc.words = t.pre.split(sc.words[:0], words, sc)
			words = sc.words
		}
		for _, w := range words {
			dst = t.model.tokenize(dst, w.text, sc)
		}
		i = j
	}
	if s.addSpecial && t.post != nil {
		dst = append(dst, t.post.suffix...)
	}
	return dst
}

// validUTF8 replaces each byte that is not part of valid UTF-8 with U+FFFD.
func validUTF8(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, r)
		i += size
	}
	return string(b)
}
