package tokenizer

import (
	"encoding/json"
	"os"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unicodeProbe is what tools/tokenizerref/unicode.js found the tokenizers
// library to do (make verify-tokenizers writes it).
const unicodeProbe = "../../third_party/tokenizers/unicode-probe.json"

// TestUnicodeReference compares our pattern classes and NFC with the
// library's on every code point, and NFC on 100 000 mark sequences.
func TestUnicodeReference(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(unicodeProbe)
	if err != nil {
		t.Skipf("%s is not there (make verify-tokenizers writes it): %v", unicodeProbe, err)
	}
	var probe struct {
		Classes      map[string][][2]rune `json:"classes"`
		NFC          [][2]json.RawMessage `json:"nfc"`
		Sequences    []string             `json:"sequences"`
		NFCSequences []string             `json:"nfcSequences"`
	}
	require.NoError(t, json.Unmarshal(b, &probe))
	ours := map[string]*unicode.RangeTable{"s": whiteSpace}
	for _, c := range []string{"L", "N", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "P", "S"} {
		ours[c] = category(c)
	}
	require.Len(t, probe.Classes, len(ours))
	for name, ranges := range probe.Classes {
		in := map[rune]bool{}
		for _, rg := range ranges {
			for r := rg[0]; r <= rg[1]; r++ {
				in[r] = true
			}
		}
		diff := 0
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if r >= 0xD800 && r <= 0xDFFF {
				continue
			}
			if in[r] != unicode.Is(ours[name], r) {
				if diff < 5 {
					t.Errorf("class %s: %U: the library %v, ours %v", name, r, in[r], !in[r])
				}
				diff++
			}
		}
		assert.Zero(t, diff, "class %s", name)
	}
	changed := map[rune]string{}
	for _, e := range probe.NFC {
		var r rune
		var s string
		require.NoError(t, json.Unmarshal(e[0], &r))
		require.NoError(t, json.Unmarshal(e[1], &s))
		changed[r] = s
	}
	diff := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		want, ok := changed[r]
		if !ok {
			want = string(r)
		}
		if got := nfc(string(r)); got != want {
			if diff < 5 {
				t.Errorf("NFC %U: the library %+q, ours %+q", r, want, got)
			}
			diff++
		}
	}
	require.Len(t, probe.NFCSequences, len(probe.Sequences))
	for i, s := range probe.Sequences {
		if got := nfc(s); got != probe.NFCSequences[i] {
			if diff < 10 {
				t.Errorf("NFC %+q: the library %+q, ours %+q", s, probe.NFCSequences[i], got)
			}
			diff++
		}
	}
	assert.Zero(t, diff, "NFC")
}
