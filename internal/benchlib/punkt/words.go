package punkt

import (
	"strings"
	"unicode/utf8"
)

// The word tokenizer of Punkt's English language variables: a word runs
// from a character that may start one to the first place that ends one;
// runs of hyphens and of periods (spaced or not) are tokens of their own;
// anything else is a token of one character. Periods stay on the words
// they end.

// nonWord holds the characters that cannot be inside a word: brackets,
// quotes, * : @ ; and the sentence ends other than the period.
func nonWord(r rune) bool { return strings.ContainsRune(`)";}]*:@'({[?!`, r) }

// wordStart reports whether r may start a word.
func wordStart(r rune) bool { return !strings.ContainsRune("(\"`{[:;&#*@)}]-,", r) }

// runeAt is the rune at byte i of s and its size; utf8.RuneError, 0 at
// the end.
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return utf8.RuneError, 0
	}
	return utf8.DecodeRuneInString(s[i:])
}

// multiChar returns the length of the multi-character punctuation at byte
// i of s: two or more hyphens, two or more periods, or two or more period
// and white space pairs followed by a period (". . ."); 0 when there is
// none.
func multiChar(s string, i int) int {
	run := func(c byte) int {
		j := i
		for j < len(s) && s[j] == c {
			j++
		}
		return j - i
	}
	if n := run('-'); n >= 2 {
		return n
	}
	if n := run('.'); n >= 2 {
		return n
	}
	// (\.\s){2,}\. with backtracking: k pairs, then a period.
	var ends []int
	j := i
	for j < len(s) && s[j] == '.' {
		r, n := runeAt(s, j+1)
		if n == 0 || !pySpace(r) {
			break
		}
		j += 1 + n
		ends = append(ends, j)
	}
	for k := len(ends); k >= 2; k-- {
		if end := ends[k-1]; end < len(s) && s[end] == '.' {
			return end + 1 - i
		}
	}
	return 0
}

// wordEnd reports whether a word may end before byte i of s: at white
// space, the end, a non-word character, multi-character punctuation, or
// a comma that is followed by one of those.
func wordEnd(s string, i int) bool {
	r, n := runeAt(s, i)
	switch {
	case n == 0 || pySpace(r) || nonWord(r) || multiChar(s, i) > 0:
		return true
	case r == ',':
		r2, n2 := runeAt(s, i+1)
		return n2 == 0 || pySpace(r2) || nonWord(r2) || multiChar(s, i+1) > 0
	}
	return false
}

// words splits one line (text without a newline) into word tokens as
// spans of byte offsets.
func words(line string) [][2]int {
	var out [][2]int
	for i := 0; i < len(line); {
		r, n := runeAt(line, i)
		if pySpace(r) {
			i += n
			continue
		}
		end := i + n
		if m := multiChar(line, i); m > 0 {
			end = i + m
		} else if wordStart(r) {
			for !wordEnd(line, end) {
				_, n := runeAt(line, end)
				end += n
			}
		}
		out = append(out, [2]int{i, end})
		i = end
	}
	return out
}
