package punkt

import (
	"strings"
	"unicode"
)

// The character classes of Python's re module (str patterns, Unicode)
// and of str methods, which NLTK's regular expressions use.

// pySpace is Python's \s and str.isspace: Unicode white space and the
// information separators U+001C..U+001F.
func pySpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// asciiSpace is Python's string.whitespace.
func asciiSpace(b byte) bool { return b == ' ' || b >= '\t' && b <= '\r' }

// pyWordNonDigit is Python's [^\W\d]: a word character (letter, number
// or underscore) that is not a decimal digit.
func pyWordNonDigit(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) && !unicode.IsDigit(r)
}

// pyUpper and pyLower are str.isupper and str.islower of one character:
// the Unicode Uppercase and Lowercase properties.
func pyUpper(r rune) bool { return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r) }
func pyLower(r rune) bool { return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r) }

// PyLower is str.lower: Go's simple mapping, except for the one
// unconditional special casing, U+0130 (capital I with dot above), which
// Python lowers to i and a combining dot above. Python's final sigma is
// not applied: it changes Greek types only, which no English parameters
// hold.
func PyLower(s string) string {
	if !strings.ContainsRune(s, 0x130) {
		return strings.ToLower(s)
	}
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// pyRStrip is str.rstrip(): text less its trailing white space.
func pyRStrip(s string) string { return strings.TrimRightFunc(s, pySpace) }

// PyStrip is str.strip(): text less leading and trailing white space.
func PyStrip(s string) string { return strings.TrimFunc(s, pySpace) }
