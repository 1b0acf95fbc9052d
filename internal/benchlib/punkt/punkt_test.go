package punkt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nltkFile is the golden file TestSentencesNLTK reads, or the file
// PUNKT_NLTK names: tools/accuracyref/punkt_check.py writes both (make
// verify-accuracy a larger one), splitting each text with NLTK's own
// PunktSentenceTokenizer built from English's parameters.
func nltkFile() string {
	if f := os.Getenv("PUNKT_NLTK"); f != "" {
		return f
	}
	return filepath.Join("testdata", "nltk_sentences.json")
}

// TestSentencesNLTK: every text's sentences as NLTK's.
func TestSentencesNLTK(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(nltkFile())
	require.NoError(t, err)
	var rows []struct {
		Text      string   `json:"text"`
		Sentences []string `json:"sentences"`
	}
	require.NoError(t, json.Unmarshal(b, &rows))
	require.NotEmpty(t, rows)
	p, err := English()
	require.NoError(t, err)
	tz := NewTokenizer(p)
	same := 0
	for i, r := range rows {
		got := tz.Sentences(r.Text)
		if len(got) == 0 && len(r.Sentences) == 0 || assert.Equal(t, r.Sentences, got, "text %d: %q", i, r.Text) {
			same++
		}
	}
	t.Logf("%s: %d of %d texts split as NLTK splits them", nltkFile(), same, len(rows))
}

// FuzzSentences: the sentences are non-empty substrings of the text, in
// order and not overlapping, and between them and after the last only
// white space is left out.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{"Mr. Smith went to Washington. He arrived at 5 p.m. on Jan. 3rd.",
		"(How?)  \"It.\" [(and this. )]", "He said... nothing. Then . . . he left.", "İ. İ.", "a.\u2028B", ""} {
		f.Add(s)
	}
	p, err := English()
	require.NoError(f, err)
	tz := NewTokenizer(p)
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			t.Skip("the scorer's texts are UTF-8")
		}
		at := 0
		var kept strings.Builder
		for _, s := range tz.Sentences(text) {
			require.NotEmpty(t, s)
			i := strings.Index(text[at:], s)
			require.GreaterOrEqual(t, i, 0, "sentence %q not after byte %d of %q", s, at, text)
			require.Empty(t, strings.TrimFunc(text[at:at+i], pySpace), "left out between sentences")
			at += i + len(s)
			kept.WriteString(s)
		}
		require.Empty(t, strings.TrimFunc(text[at:], pySpace), "left out at the end")
		noSpace := func(s string) string { return strings.Join(strings.FieldsFunc(s, pySpace), "") }
		assert.Equal(t, noSpace(text), noSpace(kept.String()))
	})
}

// BenchmarkSentences splits the golden texts (bytes/s: of text).
func BenchmarkSentences(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "nltk_sentences.json"))
	require.NoError(b, err)
	var rows []struct {
		Text string `json:"text"`
	}
	require.NoError(b, json.Unmarshal(raw, &rows))
	p, err := English()
	require.NoError(b, err)
	tz := NewTokenizer(p)
	n := 0
	for _, r := range rows {
		n += len(r.Text)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range rows {
			tz.Sentences(r.Text)
		}
	}
}
