package gptoss

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParse: hand-worked cases of the extraction, beyond the answers
// fixture's.
func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want string
		parse            func(string) (string, bool)
	}{
		// The final channel ends at <|return|> or the end of the text.
		{name: "final unterminated", text: "<|channel|>final<|message|>  B  ", want: "B", parse: gpqa},
		{name: "quoted list", text: `["B"]`, want: "B", parse: gpqa},
		{name: "three characters", text: `["]`, want: "", parse: gpqa},
		// A letter right after ANSWER is no \b: the last pattern does not
		// take it, the "Answer: X" pattern does.
		{name: "answer run together", text: "Final: ANSWERC", want: "C", parse: gpqa},
		{name: "last of several", text: "ANSWER: A then x. FINAL ANSWER = (C) done", want: "A", parse: gpqa},
		{name: "mmlu standalone", text: "pick e or f", want: "F", parse: mmlu},
		{name: "code python block", text: "x ```python\nprint(1)\n``` y ```python\nprint(2)\n```", want: "print(2)", parse: parseCode},
		{name: "code plain block", text: "```py\nprint(3)\n```", want: "print(3)", parse: parseCode},
		{name: "code in final", text: "<|channel|>analysis<|message|>```python\nbad\n```<|channel|>final<|message|>```\ngood\n```", want: "good", parse: parseCode},
		{name: "no code", text: "none here", want: "", parse: parseCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tt.parse(tt.text)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want != "", ok)
		})
	}
	for _, d := range []struct {
		r    rune
		want int
	}{{'7', 7}, {'٣', 3}, {'𝟗', 9}, {'𝟬', 0}, {'𝟮', 2}} {
		assert.Equal(t, d.want, digitValue(d.r), string(d.r))
	}
}

func gpqa(s string) (string, bool) { return parseMultipleChoice(s, gpqaChoices) }
func mmlu(s string) (string, bool) { return parseMultipleChoice(s, mmluChoices) }

// FuzzParse: the extraction never panics, and what it finds is a letter
// of the options or an AIME integer.
func FuzzParse(f *testing.F) {
	for _, a := range answers {
		f.Add(a.output)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if l, ok := gpqa(s); ok && (len(l) != 1 || !strings.Contains("ABCD", l)) {
			t.Fatalf("gpqa letter %q", l)
		}
		if l, ok := mmlu(s); ok && (len(l) != 1 || !strings.Contains("ABCDEFGHIJ", l)) {
			t.Fatalf("mmlu letter %q", l)
		}
		if v, ok := parseAIMEAnswer(s); ok && (v < 0 || v > 999) {
			t.Fatalf("aime %d", v)
		}
		parseCode(s)
		parseBoxedMath(s)
	})
}

// TestParseOfficial compares the extraction with eval_accuracy.py's own on
// the outputs of GPTOSS_PARSE, the JSON tools/accuracyref/gptoss_parse.py
// writes (make verify-accuracy runs both): every answer alike.
func TestParseOfficial(t *testing.T) {
	t.Parallel()
	path := os.Getenv("GPTOSS_PARSE")
	if path == "" {
		t.Skip("GPTOSS_PARSE unset: make verify-accuracy sets it to eval_accuracy.py's answers")
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rows []struct {
		Text       string
		GPQA, MMLU *string
		AIME       *int
		Code, Math *string
	}
	require.NoError(t, json.Unmarshal(b, &rows))
	same := 0
	for i, r := range rows {
		gq, gqOK := gpqa(r.Text)
		mm, mmOK := mmlu(r.Text)
		ai, aiOK := parseAIMEAnswer(r.Text)
		code, codeOK := parseCode(r.Text)
		math, mathOK := parseBoxedMath(r.Text)
		ok := assert.Equal(t, r.GPQA, opt(gq, gqOK), "text %d %q: gpqa", i, r.Text) &&
			assert.Equal(t, r.MMLU, opt(mm, mmOK), "text %d %q: mmlu", i, r.Text) &&
			assert.Equal(t, r.AIME, opt(ai, aiOK), "text %d %q: aime", i, r.Text) &&
			assert.Equal(t, r.Code, opt(code, codeOK), "text %d %q: code", i, r.Text) &&
			assert.Equal(t, r.Math, opt(math, mathOK), "text %d %q: math", i, r.Text)
		if ok {
			same++
		}
	}
	t.Logf("%d of %d texts parsed as eval_accuracy.py parses them", same, len(rows))
}

func opt[T any](v T, ok bool) *T {
	if !ok {
		return nil
	}
	return &v
}
