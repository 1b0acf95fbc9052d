package tokenizer

import (
	"sort"
	"unicode/utf8"
)

// NFC as the tokenizers library computes it, with the canonical
// normalization data of Unicode 9.0 (the version of its normalizer's
// tables; normtables.go): a character assigned later has no
// decomposition and combining class 0 there, and stays as it is.

type cccRange struct {
	lo, hi rune
	ccc    uint8
}

// combiningClass is r's canonical combining class.
func combiningClass(r rune) uint8 {
	if r < 0x300 {
		return 0
	}
	i := sort.Search(len(cccRanges), func(i int) bool { return cccRanges[i].hi >= r })
	if i < len(cccRanges) && cccRanges[i].lo <= r {
		return cccRanges[i].ccc
	}
	return 0
}

const (
	hangulSBase  = 0xAC00
	hangulLBase  = 0x1100
	hangulVBase  = 0x1161
	hangulTBase  = 0x11A7
	hangulLCount = 19
	hangulVCount = 21
	hangulTCount = 28
	hangulNCount = hangulVCount * hangulTCount
	hangulSCount = hangulLCount * hangulNCount
)

// nfc returns s in Normalization Form C.
func nfc(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	buf := make([]rune, 0, len(s))
	for _, r := range s {
		buf = decompose(buf, r)
	}
	reorder(buf)
	buf = compose(buf)
	out := string(buf)
	if out == s {
		return s
	}
	return out
}

// decompose appends r's full canonical decomposition.
func decompose(dst []rune, r rune) []rune {
	if r >= hangulSBase && r < hangulSBase+hangulSCount {
		i := r - hangulSBase
		dst = append(dst, hangulLBase+i/hangulNCount, hangulVBase+i%hangulNCount/hangulTCount)
		if t := i % hangulTCount; t != 0 {
			dst = append(dst, hangulTBase+t)
		}
		return dst
	}
	if r >= 0xC0 {
		if d, ok := decompositions[r]; ok {
			for _, x := range d {
				dst = append(dst, x)
			}
			return dst
		}
	}
	return append(dst, r)
}

// reorder sorts each run of non-starters by combining class, stably.
func reorder(buf []rune) {
	for i := 1; i < len(buf); i++ {
		c := combiningClass(buf[i])
		if c == 0 {
			continue
		}
		for j := i; j > 0; j-- {
			p := combiningClass(buf[j-1])
			if p <= c {
				break
			}
			buf[j-1], buf[j] = buf[j], buf[j-1]
		}
	}
}

// compose applies canonical composition to a decomposed, ordered buffer.
func compose(buf []rune) []rune {
	out := buf[:0]
	starter := -1   // index in out of the last starter
	lastClass := -1 // class of the last character after the starter; -1: none yet
	for _, r := range buf {
		c := int(combiningClass(r))
		if starter >= 0 && (lastClass == -1 || lastClass != 0 && lastClass < c) {
			if comp, ok := composePair(out[starter], r); ok {
				out[starter] = comp
				continue
			}
		}
		if c == 0 {
			starter = len(out)
			lastClass = -1
		} else {
			lastClass = c
		}
		out = append(out, r)
	}
	return out
}

func composePair(a, b rune) (rune, bool) {
	if a >= hangulLBase && a < hangulLBase+hangulLCount && b >= hangulVBase && b < hangulVBase+hangulVCount {
		return hangulSBase + ((a-hangulLBase)*hangulVCount+(b-hangulVBase))*hangulTCount, true
	}
	if a >= hangulSBase && a < hangulSBase+hangulSCount && (a-hangulSBase)%hangulTCount == 0 &&
		b > hangulTBase && b < hangulTBase+hangulTCount {
		return a + (b - hangulTBase), true
	}
	r, ok := compositions[uint64(a)<<32|uint64(b)]
	return r, ok
}
