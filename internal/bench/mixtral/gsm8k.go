package mixtral

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// numberPattern is evaluate-accuracy.py's find_numbers pattern,
// -?[\d,]*\.?\d+, with Python's \d: any Unicode decimal digit.
var numberPattern = regexp.MustCompile(`-?[\p{Nd},]*\.?\p{Nd}+`)

// answerDelimiter is find_number's answer_delimiter.
const answerDelimiter = "The answer is"

// findNumber is the script's find_number: the first number after the
// last "The answer is" where that part has one, else the last number of
// x, else "".
func findNumber(x string) string {
	if i := strings.LastIndex(x, answerDelimiter); i >= 0 {
		if n := numberPattern.FindString(x[i+len(answerDelimiter):]); n != "" {
			return n
		}
	}
	all := numberPattern.FindAllString(x, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1]
}

// gsm8kAnswer is the number the script reads from a generated text:
// maybe_remove_comma(find_number(text.split("\nQ:")[0])).
func gsm8kAnswer(text string) string {
	before, _, _ := strings.Cut(text, "\nQ:")
	return strings.ReplaceAll(findNumber(before), ",", "")
}

// pyFloatPattern is the text Python's float() reads, once stripped and
// its digits made ASCII: a decimal number with an optional exponent,
// single underscores between digits.
var pyFloatPattern = regexp.MustCompile(`^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$`)

// tryFloat is the script's try_float: Python's float(x), ok false where
// it raises.
func tryFloat(x string) (float64, bool) {
	s := strings.TrimFunc(x, py.IsSpace)
	var b strings.Builder
	for _, r := range s {
		if r > unicode.MaxASCII && unicode.Is(unicode.Nd, r) {
			r = '0' + rune(digitValue(r))
		}
		b.WriteRune(r)
	}
	s = b.String()
	body := strings.TrimLeft(s, "+-")
	switch strings.ToLower(body) {
	case "inf", "infinity", "nan":
		if len(s)-len(body) > 1 {
			return 0, false
		}
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil
	}
	if !pyFloatPattern.MatchString(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil && !isRange(err) {
		return 0, false
	}
	return v, true // out of range: Python's float too is ±inf or 0
}

func isRange(err error) bool { return errors.Is(err, strconv.ErrRange) }

// digitValue is a Unicode decimal digit's value: the Nd digits come in
// runs of tens that start at a zero.
func digitValue(r rune) int {
	first := r
	for unicode.Is(unicode.Nd, first-1) {
		first--
	}
	return int(r-first) % 10
}
