package gptoss

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// The answer extraction of language/gpt-oss-120b/eval_accuracy.py, on
// Python's re semantics: its patterns are over str, so \s is every
// character str.isspace() holds, \d every decimal digit and \b a border
// of a character str.isalnum() holds (or "_"). Go's regexp reads them as
// ASCII, so the patterns below spell \s and \d out and test the borders
// in code, where Python's pattern has them.

// pySpace is Python's \s: the characters of str.isspace().
const pySpace = `[\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// isWord is Python's \w on str: str.isalnum() or "_".
func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// wordBefore reports whether the character before byte i of s is a word
// character; wordAt whether the one at i is.
func wordBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWord(r)
}

func wordAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWord(r)
}

// strip is Python's str.strip().
func strip(s string) string { return strings.TrimFunc(s, py.IsSpace) }

// sp writes Python's \s into a pattern written with \s.
func sp(pattern string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(pattern, `\s`, pySpace))
}

var (
	// extract_final_section: the harmony format's final channel, markers
	// corrupted between "final" and <|message|> allowed.
	finalSection = regexp.MustCompile(`(?s)<\|channel\|>final[^<]*<\|message\|>(.*?)(?:<\|return\|>|$)`)
	markdownBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	// parse_code's blocks.
	pythonBlock = regexp.MustCompile("(?s)```python(.*?)```")
	plainBlock  = regexp.MustCompile("(?s)```(.*?)```")
	langTag     = sp(`(?i)^(?:python|py)\s*\n`)
	// parse_aime_answer's patterns; \d is Python's, any decimal digit.
	aimeBoxed  = sp(`\\boxed\{\s*(\p{Nd}+)\s*\}`)
	aimeAnswer = sp(`(?i)Answer:\s*(\p{Nd}+)`)
)

// extractFinalSection is extract_final_section: the content of the
// first final channel, stripped, else the text stripped.
func extractFinalSection(text string) string {
	text = strip(text)
	if m := finalSection.FindStringSubmatch(text); m != nil {
		return strip(m[1])
	}
	return text
}

// choicePatterns are parse_multiple_choice's for options A to max: the
// letter leading the final section; "Answer: X" in it; the last
// "ANSWER"/"FINAL ANSWER" of the whole text. Where Python's have a \b
// before a word, the caller tests it; the \b after ANSWER is the
// nonempty run between it and the letter (a letter right after it is
// no border), the \b after the letter consumes a character.
type choicePatterns struct {
	max                   byte
	leading, answer, last *regexp.Regexp
}

func newChoicePatterns(max byte) choicePatterns {
	o := "[A-" + string(max) + "]"
	return choicePatterns{
		max:     max,
		leading: regexp.MustCompile(`(?i)^[^a-zA-Z]*(` + o + `)(?:[^a-zA-Z]|$)`),
		answer:  sp(`(?i)(?:Answer|ANSWER)\s*[:.]?\s*(` + o + `)(?:[^\p{L}\p{N}_]|$)`),
		last: sp(`(?i)(?:ANSWER|FINAL\s*ANSWER)(?:\s+[:=]?\s*\(?\s*|[:=]\s*\(?\s*|\(\s*)(` + o +
			`)\s*\)?(?:\s*$|[^A-Za-z])`),
	}
}

var (
	gpqaChoices = newChoicePatterns('D')
	mmluChoices = newChoicePatterns('J')
)

// searchAfterBorder is re.search of a pattern that begins with \b before
// a word character: the leftmost match whose start follows no word
// character, from byte from of s on; nil when none.
func searchAfterBorder(re *regexp.Regexp, s string, from int) []int {
	for from <= len(s) {
		m := re.FindStringSubmatchIndex(s[from:])
		if m == nil {
			return nil
		}
		start := from + m[0]
		if !wordBefore(s, start) {
			for k := range m {
				if m[k] >= 0 {
					m[k] += from
				}
			}
			return m
		}
		_, size := utf8.DecodeRuneInString(s[start:])
		from = start + max(size, 1)
	}
	return nil
}

// parseMultipleChoice is parse_multiple_choice(text, max_option): the
// answer letter, upper case, and false when none is found.
func parseMultipleChoice(text string, c choicePatterns) (string, bool) {
	text = strip(text)
	if text == "" {
		return "", false
	}
	final := markdownBold.ReplaceAllString(extractFinalSection(text), "${1}")
	if (strings.HasPrefix(final, "['") || strings.HasPrefix(final, `["`)) && (strings.HasSuffix(final, "']") || strings.HasSuffix(final, `"]`)) {
		if len(final) >= 4 {
			final = strip(final[2 : len(final)-2])
		} else {
			final = ""
		}
	}
	final = unescape(final)
	if m := c.leading.FindStringSubmatch(strip(final)); m != nil {
		return strings.ToUpper(m[1]), true
	}
	if m := searchAfterBorder(c.answer, final, 0); m != nil {
		return strings.ToUpper(final[m[2]:m[3]]), true
	}
	full := unescape(text)
	var last []int
	for from := 0; from <= len(full); {
		m := searchAfterBorder(c.last, full, from)
		if m == nil {
			break
		}
		last = m
		from = m[1]
		if m[1] == m[0] {
			from++
		}
	}
	if last != nil {
		return strings.ToUpper(full[last[2]:last[3]]), true
	}
	if c.max == 'J' {
		return lastStandaloneLetter(final, c.max)
	}
	return "", false
}

// unescape is the script's .replace(r'\n', '\n').replace(r"\'", "'").
func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\n`, "\n"), `\'`, "'")
}

// lastStandaloneLetter is the MMLU-Pro fallback, the last \b([A-J])\b of
// s (either case), upper case.
func lastStandaloneLetter(s string, max byte) (string, bool) {
	found := ""
	for i := 0; i < len(s); i++ {
		b := s[i] | 0x20
		if b >= 'a' && b <= max|0x20 && !wordBefore(s, i) && !wordAt(s, i+1) {
			found = strings.ToUpper(s[i : i+1])
		}
	}
	return found, found != ""
}

// parseAIMEAnswer is parse_aime_answer: the last \boxed{digits}, else the
// last "Answer: digits" that a full stop or a word character does not
// follow, as an integer from 0 to 999; false when none is.
func parseAIMEAnswer(text string) (int, bool) {
	text = strip(text)
	if text == "" {
		return 0, false
	}
	digits := ""
	if ms := aimeBoxed.FindAllStringSubmatch(text, -1); ms != nil {
		digits = ms[len(ms)-1][1]
	} else {
		for _, m := range aimeAnswer.FindAllStringSubmatchIndex(text, -1) {
			if end := m[3]; end == len(text) || text[end] != '.' && !wordAt(text, end) {
				digits = text[m[2]:m[3]]
			}
		}
		if digits == "" {
			return 0, false
		}
	}
	v := 0
	for _, r := range digits {
		v = v*10 + digitValue(r)
		if v > 999 {
			return 0, false
		}
	}
	return v, true
}

// digitValue is the value of a decimal digit: Unicode's digits (category
// Nd) run from a zero in blocks of ten.
func digitValue(r rune) int {
	z := r
	for z > 0 && unicode.Is(unicode.Nd, z-1) {
		z--
	}
	return int(r-z) % 10
}

// parseBoxedMath is parse_boxed_math: the content of the last \boxed{
// to its matching brace, stripped; false when there is none or its brace
// is not closed.
func parseBoxedMath(text string) (string, bool) {
	text = strip(text)
	i := strings.LastIndex(text, `\boxed{`)
	if text == "" || i < 0 {
		return "", false
	}
	start, depth := i+len(`\boxed{`), 0
	for k := start; k < len(text); k++ {
		switch text[k] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return strip(text[start:k]), true
			}
			depth--
		}
	}
	return "", false
}

// parseCode is parse_code: the last ```python block of the final channel,
// else its last ``` block without its language tag, else the same of the
// whole text; false when there is none.
func parseCode(text string) (string, bool) {
	text = strip(text)
	if text == "" {
		return "", false
	}
	if final := extractFinalSection(text); final != text {
		if code, ok := lastBlock(final); ok {
			return code, true
		}
	}
	return lastBlock(text)
}

func lastBlock(s string) (string, bool) {
	if ms := pythonBlock.FindAllStringSubmatch(s, -1); ms != nil {
		return strip(ms[len(ms)-1][1]), true
	}
	if ms := plainBlock.FindAllStringSubmatch(s, -1); ms != nil {
		code := strip(ms[len(ms)-1][1])
		if loc := langTag.FindStringIndex(code); loc != nil {
			code = code[loc[1]:]
		}
		return code, true
	}
	return "", false
}
