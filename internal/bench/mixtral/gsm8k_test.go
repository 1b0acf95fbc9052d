package mixtral

import (
	"math"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestGSM8KAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want string
	}{
		{name: "after the delimiter", text: "3 + 4 = 7. The answer is 7. Then 9.", want: "7"},
		{name: "the last delimiter", text: "The answer is 1. No: The answer is 2, not 5.", want: "2"},
		{name: "no number after it: the last one", text: "5 and 6. The answer is six.", want: "6"},
		{name: "thousands", text: "The answer is 1,234,567.", want: "1234567"},
		{name: "negative decimal", text: "It is -12.50 degrees", want: "-12.50"},
		{name: "before Q", text: "Total 8.\nQ: next 9", want: "8"},
		{name: "none", text: "no idea", want: ""},
		// [\d,]* may take a lone comma; maybe_remove_comma drops it.
		{name: "leading comma", text: "x ,5", want: "5"},
		{name: "unicode digits", text: "\u0663\u0660 apples", want: "\u0663\u0660"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, gsm8kAnswer(tt.text))
		})
	}
}

// TestTryFloat: what Python's float() reads, and what it rejects.
func TestTryFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"18", 18, true},
		{" 18.0\n", 18, true},
		{"-4", -4, true},
		{"+.5", 0.5, true},
		{"5.", 5, true},
		{"1_000", 1000, true},
		{"1e3", 1000, true},
		{"\u0664\u0662", 42, true},
		{"\U0001D7D0", 2, true}, // MATHEMATICAL BOLD DIGIT TWO: a run of five tens
		{"1__0", 0, false},
		{"_1", 0, false},
		{"1,000", 0, false},
		{"0x10", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"twelve", 0, false},
		{"1e999", math.Inf(1), true},
	}
	for _, tt := range tests {
		got, ok := tryFloat(tt.in)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
		if tt.ok {
			assert.InDelta(t, tt.want, got, 0, "%q", tt.in) //nolint:testifylint // exact
		}
	}
	v, ok := tryFloat("-inf")
	assert.True(t, ok)
	assert.True(t, math.IsInf(v, -1))
	v, ok = tryFloat("NaN")
	assert.True(t, ok)
	assert.True(t, math.IsNaN(v))
}

// FuzzGSM8KAnswer: any text gives an answer that is "" or a number
// float() reads, never a panic.
func FuzzGSM8KAnswer(f *testing.F) {
	for _, s := range []string{"The answer is 1,234.", "x\nQ: 5", "-,5", "\u0663.\u0660"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		a := gsm8kAnswer(text)
		if _, ok := tryFloat(a); a != "" && !ok {
			t.Fatalf("answer %q of %q is not a number", a, text)
		}
	})
}
