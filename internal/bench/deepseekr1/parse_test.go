package deepseekr1

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// officialCases are what eval_accuracy.py's parsers and PRM800K's
// grade_answer return on a few inputs each (testdata/official_cases.json,
// written by running them: testdata/README.md); null is None.
type officialCases struct {
	MC    [][2]*string `json:"mc"`
	MMLU  [][2]*string `json:"mmlu"`
	Boxed [][2]*string `json:"boxed"`
	AIME  [][2]any     `json:"aime"`
	Code  [][2]*string `json:"code"`
	Grade [][3]any     `json:"grade"`
}

func readOfficialCases(t *testing.T) officialCases {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "official_cases.json"))
	require.NoError(t, err)
	var c officialCases
	require.NoError(t, json.Unmarshal(b, &c))
	return c
}

// opt is a parser's answer as the cases write it.
func opt(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

// TestParsersAsOfficial: each parser returns what eval_accuracy.py's
// returns, Unicode's classes and case folding included.
func TestParsersAsOfficial(t *testing.T) {
	t.Parallel()
	c := readOfficialCases(t)
	for _, tc := range c.MC {
		p := parseMultipleChoice(*tc[0], 'D')
		assert.Equal(t, tc[1], opt(p, p != ""), "gpqa %q", *tc[0])
	}
	for _, tc := range c.MMLU {
		p := parseMultipleChoice(*tc[0], 'J')
		assert.Equal(t, tc[1], opt(p, p != ""), "mmlu_pro %q", *tc[0])
	}
	for _, tc := range c.Boxed {
		assert.Equal(t, tc[1], opt(parseBoxed(*tc[0])), "boxed %q", *tc[0])
	}
	for _, tc := range c.AIME {
		v, ok := parseAIME(tc[0].(string))
		var got any
		if ok {
			got = float64(v)
		}
		assert.Equal(t, tc[1], got, "aime %q", tc[0])
	}
	for _, tc := range c.Code {
		assert.Equal(t, tc[1], opt(parseCode(*tc[0])), "code %q", *tc[0])
	}
}

// TestGradeAsOfficial: gradeAnswer agrees with PRM800K's grade_answer.
func TestGradeAsOfficial(t *testing.T) {
	t.Parallel()
	for _, tc := range readOfficialCases(t).Grade {
		given, truth := tc[0].(string), tc[1].(string)
		assert.Equal(t, tc[2], gradeAnswer(given, truth), "grade_answer(%q, %q)", given, truth)
	}
}

// TestLatexToText renders as pylatexenc's LatexNodes2Text does.
func TestLatexToText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`\frac{a+b}{c}`, "a+b/c"},
		{`\frac12`, "1/2"},
		{`3\sqrt{13}`, "3sqrt(13)"},
		{`\sqrt[3]{2}`, "sqrt(2)"},
		{`\left( 3, \frac{\pi}{2} \right)`, "( 3,  pi/2 )"},
		{`\text{Evelyn}`, "Evelyn"},
		{`\mbox{cm}5`, "5"},
		{`\sin x \cdot y`, "sinx *y"},
		{`\unknown{7}`, "7"},
		{`a\,b~c\\d`, "a b\u00a0c\nd"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, latexToText(tt.in), tt.in)
	}
}

// TestSymbolicZero: exact for rationals, numeric with symbols and
// roots; what sympy cannot read is not zero.
func TestSymbolicZero(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr string
		zero bool
	}{
		{"(1/3)-(0.3333333333)", false},
		{"(0.5)-(1/2)", true},
		{"(2**100)-(1267650600228229401496703205376)", true},
		{"(x**2+7x+10)-((x+2)(x+5))", true},
		{"(sqrt(8))-(2sqrt(2))", true},
		{"(pi/2)-(1.5707963)", false},
		{"(xy)-(yx)", true},
		{"(x)-(y)", false},
		{"(1/0)-(1/0)", false},
		{"(5!)-(120)", true},
		{"(x=5)-(5)", false},
		{"(1,2)-(1,2)", false},
		{"((((", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.zero, symbolicZero(tt.expr), tt.expr)
	}
}

// FuzzParsers: any text is parsed or refused, never a panic, and an
// answer is one of the options.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{"ANSWER: B", `\boxed{\frac{1}{2}}`, "Answer: 12", "```python\nx\n```", "ſ ı K ١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p := parseMultipleChoice(s, 'J'); p != "" && (len(p) != 1 || p[0] < 'A' || p[0] > 'J') {
			t.Fatalf("option %q", p)
		}
		if v, ok := parseAIME(s); ok && (v < 0 || v > 999) {
			t.Fatalf("aime %d", v)
		}
		parseBoxed(s)
		parseCode(s)
		if b, ok := parseBoxed(s); ok {
			gradeAnswer(b, "1")
		}
	})
}
