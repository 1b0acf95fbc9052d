package deepseekr1

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// The MATH-500 grader: PRM800K's grading.grader.grade_answer, which the
// official script calls, written from its published rules (the MATH
// release's string normalization, PRM800K's own, then a symbolic check of
// the difference, which [symbolicZero] stands in for).

// gradeAnswer says whether given is ground truth's answer: equal after
// the MATH normalization, or after PRM800K's, or element by element (a
// tuple or interval's) where fractions must match as written, integers
// as integers, and the rest differ by zero.
func gradeAnswer(given, truth string) bool {
	if mathdNormalize(truth) == mathdNormalize(given) {
		return true
	}
	gt, gv := prmNormalize(truth), prmNormalize(given)
	if gt == gv {
		return true
	}
	if gv == "" {
		return false
	}
	gtElems, gvElems := splitTuple(gt), splitTuple(gv)
	gtr, gvr := []rune(gt), []rune(gv)
	if len(gtElems) > 1 && (gtr[0] != gvr[0] || gtr[len(gtr)-1] != gvr[len(gvr)-1]) {
		return false
	}
	if len(gtElems) != len(gvElems) {
		return false
	}
	for i := range gtElems {
		a, b := gtElems[i], gvElems[i]
		var ok bool
		switch {
		case isFrac(a) && isFrac(b):
			// Unreduced fractions are not the reduced one.
			ok = a == b
		case strIsInt(a) != strIsInt(b):
			ok = false
		default:
			ok = equalUnderSympy(a, b)
		}
		if !ok {
			return false
		}
	}
	return true
}

// pyStrip is Python's str.strip().
func pyStrip(s string) string { return strings.TrimFunc(s, py.IsSpace) }

// pyDollar is what Python's "$" matches without MULTILINE: the end, or a
// final newline.
const pyDollar = `\n?\z`

var textWhole = regexp.MustCompile(`^\\text\{(.+?)\}` + pyDollar)

// mathdNormalize is the MATH release's normalization (PRM800K's
// math_normalize.normalize_answer); where a step fails on the string
// (Python raises), the answer as it stood.
func mathdNormalize(answer string) string {
	answer = pyStrip(answer)
	if m := textWhole.FindStringSubmatch(answer); m != nil {
		answer = pyStrip(m[1])
	}
	s, ok := mathdStrip(answer)
	if !ok {
		return answer
	}
	return s
}

// mathdStrip is math_normalize's _strip_string; false where it raises.
func mathdStrip(s string) (string, bool) {
	for _, r := range [][2]string{{"\n", ""}, {`\!`, ""}, {`\\`, `\`}, {"tfrac", "frac"}, {"dfrac", "frac"},
		{`\left`, ""}, {`\right`, ""}, {`^{\circ}`, ""}, {`^\circ`, ""}, {`\$`, ""}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	if strings.Contains(s, `\text{ `) {
		parts := strings.Split(s, `\text{ `)
		if len(parts) != 2 {
			return "", false
		}
		s = parts[0]
	}
	s = strings.ReplaceAll(s, `\%`, "")
	s = strings.ReplaceAll(s, " .", " 0.")
	s = strings.ReplaceAll(s, "{.", "{0.")
	if s == "" {
		return s, true
	}
	if s[0] == '.' {
		s = "0" + s
	}
	if parts := strings.Split(s, "="); len(parts) == 2 && len([]rune(parts[0])) <= 2 {
		s = parts[1]
	}
	s, ok := fixSqrt(s)
	if !ok {
		return "", false
	}
	s = strings.ReplaceAll(s, " ", "")
	s = fixFracs(s)
	if !ok {
		return "", false
	}
	if s == "0.5" {
		s = `\frac{1}{2}`
	}
	return fixASlashB(s), true
}

// fixSqrt braces a one-character \sqrt argument; false where one is
// empty (Python's IndexError).
func fixSqrt(s string) (string, bool) {
	if !strings.Contains(s, `\sqrt`) {
		return s, true
	}
	parts := strings.Split(s, `\sqrt`)
	out := parts[0]
	for _, p := range parts[1:] {
		r := []rune(p)
		if len(r) == 0 {
			return "", false
		}
		if r[0] != '{' {
			out += `\sqrt{` + string(r[0]) + "}" + string(r[1:])
		} else {
			out += `\sqrt` + p
		}
	}
	return out, true
}

// fixFracs braces one-character \frac arguments; the string as it was
// where an argument is too short.
func fixFracs(s string) string {
	parts := strings.Split(s, `\frac`)
	out := parts[0]
	for _, p := range parts[1:] {
		out += `\frac`
		r := []rune(p)
		if len(r) > 0 && r[0] == '{' {
			out += p
			continue
		}
		if len(r) < 2 {
			return s
		}
		a, b, rest := string(r[0]), string(r[1]), string(r[2:])
		if b != "{" {
			out += "{" + a + "}{" + b + "}" + rest
		} else {
			out += "{" + a + "}" + b + rest
		}
	}
	return out
}

var canonicalInt = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// fixASlashB writes a/b of integers as \frac{a}{b}.
func fixASlashB(s string) string {
	parts := strings.Split(s, "/")
	if len(parts) != 2 || !canonicalInt.MatchString(parts[0]) || !canonicalInt.MatchString(parts[1]) || parts[0] == "-0" || parts[1] == "-0" {
		return s
	}
	return `\frac{` + parts[0] + "}{" + parts[1] + "}"
}

var (
	prmUnits     = []string{"degree", "cm", "centimeter", "meter", "mile", "second", "minute", "hour", "day", "week", "month", "year", "foot", "feet", "inch", "yard"}
	prmUnitREs   []*regexp.Regexp
	prmCirc      = regexp.MustCompile(`\^ *\\circ`)
	prmThinSpace = regexp.MustCompile(`,\\! *`)
	prmMinus     = regexp.MustCompile(`- *`)
	prmMixed     = regexp.MustCompile(`([0-9]) +([0-9])`)
	prmCommas    = regexp.MustCompile(`(\d)(,)(\d\d\d)(\z|\D)`)
	prmFrac      = regexp.MustCompile(`^-?[0-9]+.?/0*[1-9][0-9]*.?` + pyDollar)
)

func init() {
	for _, u := range prmUnits {
		prmUnitREs = append(prmUnitREs, regexp.MustCompile(u+`(es)?(s)? *(\^[0-9]+)?`))
	}
}

// prmNormalize is PRM800K's _normalize.
func prmNormalize(expr string) string {
	if m := textWhole.FindStringSubmatch(expr); m != nil {
		expr = m[1]
	}
	for _, r := range [][2]string{{`\%`, "%"}, {`\$`, "$"}, {"$", ""}, {"%", ""}, {" or ", " , "}, {" and ", " , "},
		{"million", "*10^6"}, {"billion", "*10^9"}, {"trillion", "*10^12"}} {
		expr = strings.ReplaceAll(expr, r[0], r[1])
	}
	for _, re := range prmUnitREs {
		expr = re.ReplaceAllString(expr, "")
	}
	expr = prmCirc.ReplaceAllString(expr, "")
	if r := []rune(expr); len(r) > 0 && r[0] == '{' && r[len(r)-1] == '}' {
		expr = string(r[1 : len(r)-1])
	}
	expr = prmThinSpace.ReplaceAllString(expr, "")
	if f, ok := pyFloat(expr); ok && isIntFloat(f) {
		expr = roundedInt(f)
	}
	if strings.Contains(expr, `\`) {
		expr = latexToText(expr)
	}
	expr = prmMinus.ReplaceAllString(expr, "-")
	expr = prmMixed.ReplaceAllString(expr, "${1}+${2}")
	expr = strings.ReplaceAll(expr, " ", "")
	expr = strings.ReplaceAll(expr, "{", "")
	expr = strings.ReplaceAll(expr, "}", "")
	expr = strings.ToLower(expr)
	if strIsInt(expr) {
		f, _ := pyFloat(strings.ReplaceAll(expr, ",", ""))
		expr = truncatedInt(f)
	}
	return expr
}

// pyFloatSyntax is what Python's float() reads (after stripping).
var pyFloatSyntax = regexp.MustCompile(`^[+-]?((\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?|(?i:inf|infinity|nan))$`)

// pyFloat is Python's float(s); false where it raises.
func pyFloat(s string) (float64, bool) {
	s = pyStrip(s)
	if !pyFloatSyntax.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, false
	}
	return f, true
}

// isIntFloat is _is_int: within 1e-7 of an integer (not inf or nan).
func isIntFloat(f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	return math.Abs(f-math.RoundToEven(f)) <= 1e-7
}

// roundedInt is str(int(round(f))).
func roundedInt(f float64) string {
	i, _ := big.NewFloat(math.RoundToEven(f)).Int(nil)
	return i.String()
}

// truncatedInt is str(int(f)).
func truncatedInt(f float64) string {
	i, _ := big.NewFloat(math.Trunc(f)).Int(nil)
	return i.String()
}

// stripCommas is _strip_properly_formatted_commas: 1,000 is 1000, a
// tuple's commas stay.
func stripCommas(s string) string {
	for {
		next := prmCommas.ReplaceAllString(s, "${1}${3}${4}")
		if next == s {
			return next
		}
		s = next
	}
}

// strIsInt is _str_is_int.
func strIsInt(s string) bool {
	f, ok := pyFloat(stripCommas(s))
	return ok && isIntFloat(f)
}

// isFrac is _is_frac: an integer over a positive integer.
func isFrac(s string) bool { return prmFrac.MatchString(s) }

// splitTuple is split_tuple: the elements of a tuple or interval (its
// brackets and no others), else the expression.
func splitTuple(s string) []string {
	s = stripCommas(s)
	if s == "" {
		return nil
	}
	r := []rune(s)
	const brackets = "()[]"
	if len(r) > 2 && strings.ContainsRune(brackets, r[0]) && strings.ContainsRune(brackets, r[len(r)-1]) &&
		!strings.ContainsAny(string(r[1:len(r)-1]), brackets) {
		var elems []string
		for _, e := range strings.Split(string(r[1:len(r)-1]), ",") {
			elems = append(elems, pyStrip(e))
		}
		return elems
	}
	return []string{s}
}

var (
	badPowers  = []string{"^{", "^("}
	badPowerRE = []*regexp.Regexp{regexp.MustCompile(`\^[0-9]+\^`), regexp.MustCompile(`\^[0-9][0-9]+`)}
)

// equalUnderSympy is are_equal_under_sympy: (a)-(b) is zero, where
// the grader lets it be evaluated (at most two unknown letters, no
// braced or parenthesized or long powers).
func equalUnderSympy(a, b string) bool {
	expr := "(" + a + ")-(" + b + ")"
	letters := map[rune]bool{}
	for _, r := range strings.ReplaceAll(strings.ReplaceAll(expr, "sqrt", ""), "frac", "") {
		if unicode.IsLetter(r) {
			letters[r] = true
		}
	}
	if len(letters) > 2 {
		return false
	}
	for _, s := range badPowers {
		if strings.Contains(expr, s) {
			return false
		}
	}
	for _, re := range badPowerRE {
		if re.MatchString(expr) {
			return false
		}
	}
	return symbolicZero(strings.ReplaceAll(expr, "^", "**"))
}
