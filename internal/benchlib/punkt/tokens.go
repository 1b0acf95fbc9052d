package punkt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The orthographic contexts a word type was seen in during training: at
// the beginning of a sentence, in its middle or at an unknown position,
// with an upper or a lower case first letter.
const (
	orthoBegUC = 1 << 1
	orthoMidUC = 1 << 2
	orthoUnkUC = 1 << 3
	orthoBegLC = 1 << 4
	orthoMidLC = 1 << 5
	orthoUnkLC = 1 << 6
	orthoUC    = orthoBegUC | orthoMidUC | orthoUnkUC
	orthoLC    = orthoBegLC | orthoMidLC | orthoUnkLC
)

// token is a word token and its annotations.
type token struct {
	tok string
	// typ is the lower-cased token, "##number##" for a number.
	typ                       string
	periodFinal               bool
	sentBreak, abbr, ellipsis bool
}

func newToken(tok string) *token {
	return &token{tok: tok, typ: wordType(tok), periodFinal: strings.HasSuffix(tok, ".")}
}

// wordType lower-cases tok and stands "##number##" in for a number: an
// optional minus, an optional period or comma, a digit, then digits,
// commas, periods and hyphens, and an optional final period.
func wordType(tok string) string {
	t := PyLower(tok)
	s := strings.TrimPrefix(t, "-")
	if s != "" && (s[0] == '.' || s[0] == ',') {
		s = s[1:]
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsDigit(r) {
		return t
	}
	for _, r := range s[n:] {
		if !unicode.IsDigit(r) && r != ',' && r != '.' && r != '-' {
			return t
		}
	}
	return "##number##"
}

// typeNoPeriod is the type less its final period.
func (t *token) typeNoPeriod() string {
	if len(t.typ) > 1 && t.typ[len(t.typ)-1] == '.' {
		return t.typ[:len(t.typ)-1]
	}
	return t.typ
}

// typeNoSentPeriod is the type less the period that breaks a sentence.
func (t *token) typeNoSentPeriod() string {
	if t.sentBreak {
		return t.typeNoPeriod()
	}
	return t.typ
}

func (t *token) first() rune {
	r, _ := utf8.DecodeRuneInString(t.tok)
	return r
}

func (t *token) firstUpper() bool { return pyUpper(t.first()) }
func (t *token) firstLower() bool { return pyLower(t.first()) }

// isEllipsis: two or more periods and nothing else.
func (t *token) isEllipsis() bool {
	return len(t.tok) >= 2 && strings.Trim(t.tok, ".") == ""
}

// isInitial: a letter (or a word character other than a digit) and a
// period.
func (t *token) isInitial() bool {
	r, n := utf8.DecodeRuneInString(t.tok)
	return n > 0 && pyWordNonDigit(r) && t.tok[n:] == "."
}
