package deepseekr1

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// The answer parsers of eval_accuracy.py. Its patterns are Python's, on
// str: \b, \w, \s and \d are Unicode's and IGNORECASE folds ı, ſ and the
// Kelvin sign to i, s and k. asPythonText rewrites a text so that Go's
// ASCII classes match where Python's match: the other word characters
// become '_' (a word character no pattern names), the other white space
// ' ' and the other decimal digits their ASCII digit, one character for
// one.
func asPythonText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x80:
			return r
		case r == 'ı':
			return 'i'
		case r == 'ſ':
			return 's'
		case r == 'K':
			return 'k'
		case unicode.Is(unicode.Nd, r):
			return '0' + rune(digitValue(r))
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			return '_'
		case py.IsSpace(r):
			return ' '
		}
		return r
	}, s)
}

// digitValue is a decimal digit's value (each Unicode block of decimal
// digits runs 0 to 9 from a code point ending in 0 in hexadecimal,
// or from a multiple of ten).
func digitValue(r rune) int {
	for d := 0; d < 10; d++ {
		if !unicode.Is(unicode.Nd, r-rune(d)) {
			return d - 1
		}
	}
	return 9
}

// multipleChoice are the ANSWER patterns for options A-D (GPQA) and A-J
// (MMLU-Pro), and MMLU-Pro's standalone letter.
var (
	answerD      = regexp.MustCompile(`(?i)\b(?:ANSWER|FINAL\s*ANSWER)\b\s*[:=]?\s*(?:\(?\s*([A-D])\s*\)?)(?:\s*\z|[^A-Za-z])`)
	answerJ      = regexp.MustCompile(`(?i)\b(?:ANSWER|FINAL\s*ANSWER)\b\s*[:=]?\s*(?:\(?\s*([A-J])\s*\)?)(?:\s*\z|[^A-Za-z])`)
	letterJ      = regexp.MustCompile(`(?i)\b([A-J])\b`)
	boxedDigits  = regexp.MustCompile(`\\boxed\{\s*(\d+)\s*\}`)
	answerDigits = regexp.MustCompile(`(?i)Answer:\s*(\d+)`)
	pythonBlock  = regexp.MustCompile("(?s)```python(.*?)```")
)

// parseMultipleChoice is parse_multiple_choice: the last "ANSWER: X" (or
// "FINAL ANSWER"), for MMLU-Pro else the last standalone letter; "" for
// none (Python's None).
func parseMultipleChoice(text string, maxOption byte) string {
	text = pyStrip(text)
	if text == "" {
		return ""
	}
	if (strings.HasPrefix(text, "['") || strings.HasPrefix(text, `["`)) && (strings.HasSuffix(text, "']") || strings.HasSuffix(text, `"]`)) {
		r := []rune(text)
		if len(r) >= 4 {
			text = pyStrip(string(r[2 : len(r)-2]))
		} else {
			text = ""
		}
	}
	text = strings.ReplaceAll(text, `\n`, "\n")
	text = strings.ReplaceAll(text, `\'`, "'")
	t := asPythonText(text)
	pat := answerD
	if maxOption == 'J' {
		pat = answerJ
	}
	if m := pat.FindAllStringSubmatch(t, -1); m != nil {
		return strings.ToUpper(m[len(m)-1][1])
	}
	if maxOption == 'J' {
		if m := letterJ.FindAllStringSubmatch(t, -1); m != nil {
			return strings.ToUpper(m[len(m)-1][1])
		}
	}
	return ""
}

// parseBoxed is parse_boxed_math: the content of the last \boxed{...}
// up to its matching brace, stripped; false for none or an unclosed one.
func parseBoxed(text string) (string, bool) {
	text = pyStrip(text)
	idx := strings.LastIndex(text, `\boxed{`)
	if text == "" || idx < 0 {
		return "", false
	}
	depth := 0
	start := idx + len(`\boxed{`)
	for i := start; i < len(text); i++ {
		switch text[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return pyStrip(text[start:i]), true
			}
			depth--
		}
	}
	return "", false
}

// parseAIME is parse_aime_answer: the last \boxed{digits}, else the last
// "Answer: digits" (not followed by a '.' or a word character), as an
// integer of 0 to 999; false for none.
func parseAIME(text string) (int, bool) {
	text = pyStrip(text)
	if text == "" {
		return 0, false
	}
	t := asPythonText(text)
	var digits string
	if m := boxedDigits.FindAllStringSubmatch(t, -1); m != nil {
		digits = m[len(m)-1][1]
	} else {
		idx := answerDigits.FindAllStringSubmatchIndex(t, -1)
		found := false
		for _, m := range idx {
			// (\d+)(?!\.)\b: the run of digits whole, then neither '.'
			// nor a word character.
			if end := m[3]; end < len(t) && (t[end] == '.' || t[end] == '_' || isASCIIAlnum(t[end])) {
				continue
			}
			digits, found = t[m[2]:m[3]], true
		}
		if !found {
			return 0, false
		}
	}
	digits = strings.TrimLeft(digits, "0")
	if len(digits) > 3 {
		return 0, false // 1000 or more
	}
	v, _ := strconv.Atoi("0" + digits)
	return v, true
}

func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// parseCode is parse_code: the first ```python block, stripped; false
// for none.
func parseCode(text string) (string, bool) {
	text = pyStrip(text)
	m := pythonBlock.FindStringSubmatch(text)
	if text == "" || m == nil {
		return "", false
	}
	return pyStrip(m[1]), true
}
