package whisper

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnglishNormalizer: whisper's EnglishTextNormalizer on cases worked
// through its rules; tools/accuracyref/shims/whisper (a Python
// reimplementation) prints the same on each.
func TestEnglishNormalizer(t *testing.T) {
	t.Parallel()
	n := NewEnglishNormalizer(map[string]string{"colour": "color", "honour": "honor"})
	tests := []struct{ name, in, want string }{
		{name: "currency and cents", in: "mister smith paid twenty five dollars and ten cents", want: "mister smith paid $25.10"},
		{name: "currency digits", in: "$3 7 cents", want: "$3.07"},
		{name: "cents alone", in: "$0 05", want: "¢5"},
		{name: "year", in: "at nineteen sixty one", want: "at 1961"},
		{name: "hundred and", in: "one hundred and five percent", want: "105%"},
		{name: "thousand and", in: "two thousand and twenty", want: "2020"},
		{name: "ninth is no ordinal", in: "the ninth nineth twelfth", want: "the ninth 9th 12th"},
		{name: "double", in: "double o seven", want: "007"},
		{name: "leading zeros of digits dropped", in: "007", want: "7"},
		{name: "digits in a row", in: "one two three", want: "123"},
		{name: "nominal", in: "one oh one", want: "101"},
		{name: "plurals", in: "the sixties sixes and sevens", want: "the 60s 6s and 7s"},
		{name: "and a half", in: "three and a half million pounds", want: "£3500000"},
		{name: "and a half after a word", in: "twenty and a half", want: "20.5"},
		{name: "one stays a word", in: "every one of them 1", want: "every one of them one"},
		{name: "decillion", in: "one decillion two hundred thousand and three", want: "1000000000000000000000000000200003"},
		{name: "point", in: "twelve hundred and fifty five point seven", want: "1255.7"},
		{name: "minus", in: "minus five and minus plus", want: "-5 and -plus"},
		{name: "contractions", in: "i won't, it's she'd been they're i'm", want: "i will not it is she had been they are i am"},
		{name: "titles", in: "Mr. and Mrs. Brown's colour, Dr St", want: "mister and missus brown is color doctor saint"},
		{name: "fillers and brackets", in: "um hello [noise] (laughs) <unk> uh there hmm", want: "hello there"},
		{name: "symbols", in: "a well-known +5 50% x% $", want: "a well known 5 50% x $"},
		{name: "diacritics", in: "café Ærø straße", want: "cafe aero strasse"},
		{name: "digit commas and periods", in: "1,000,000 dollars. 3.14", want: "$1000000 3.14"},
		{name: "suffix spacing", in: "2 nd 4 th a1b2 1 st", want: "2nd 4th a one b 2 one saint"}, // st is a title first
		{name: "empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, n.Normalize(tt.in))
		})
	}
}

// TestEnglishNormalizerCases: testdata/whisper/normalizer_cases.json holds
// 400 random word sequences over the normalizer's vocabulary and what the
// Python reimplementation (tools/accuracyref/shims/whisper, written
// separately from the same reading of openai-whisper) makes of them
// (tools/accuracyref/make_fixtures.py).
func TestEnglishNormalizerCases(t *testing.T) {
	t.Parallel()
	td := filepath.Join("testdata", "whisper")
	spellings, err := ReadSpellings(filepath.Join(td, "english.json"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(td, "normalizer_cases.json"))
	require.NoError(t, err)
	var cases [][2]string
	require.NoError(t, json.Unmarshal(b, &cases))
	require.Len(t, cases, 400)
	n := NewEnglishNormalizer(spellings)
	for _, c := range cases {
		assert.Equal(t, c[1], n.Normalize(c[0]), "normalizing %q", c[0])
	}
}

// TestConcatenatedWordErrors: helpers.py's alignment, worked by hand.
func TestConcatenatedWordErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, hyp, ref string
		want           int
	}{
		{name: "same", hyp: "a b c", ref: "a b c", want: 0},
		{name: "substitution", hyp: "a x c", ref: "a b c", want: 1},
		{name: "hypothesis joins two", hyp: "everyone said", ref: "every one said", want: 0},
		{name: "hypothesis splits one", hyp: "every one said", ref: "everyone said", want: 0},
		{name: "three joined", hyp: "abc d", ref: "a b c d", want: 0},
		{name: "four are not joined", hyp: "abcd", ref: "a b c d", want: 4},
		{name: "deletion", hyp: "a c", ref: "a b c", want: 1}, // aligned (b, c), then c alone: one edit
		{name: "insertion at the end", hyp: "a b c d", ref: "a b c", want: 1},
		{name: "empty hypothesis", hyp: "", ref: "a b", want: 2},
		{name: "empty reference", hyp: "a", ref: "", want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, concatenatedWordErrors(strings.Fields(tt.hyp), strings.Fields(tt.ref)))
		})
	}
}

// whisperLog writes an accuracy log of texts, each character as its
// index in the alphabet, size bytes little endian.
func whisperLog(size int, texts ...string) string {
	var entries []string
	for i, text := range texts {
		var data []byte
		for _, c := range text {
			v := uint64(strings.IndexRune(WhisperLabels, c))
			data = binary.LittleEndian.AppendUint64(data, v)[:len(data)+size]
		}
		entries = append(entries, fmt.Sprintf(`{"seq_id": %d, "qsl_idx": %d, "data": "%X"}`, i, i, data))
	}
	return "[" + strings.Join(entries, ",") + "]"
}

// TestWERDtypes: the response widths accuracy_eval.py reads, its "int32"
// being a C long (8 bytes), and the log errors.
func TestWERDtypes(t *testing.T) {
	t.Parallel()
	n := NewEnglishNormalizer(nil)
	refs := []string{"the cat sat", "on the mat"}
	tests := []struct {
		name, dtype, log, want, err string
	}{
		{name: "int64 default", log: whisperLog(8, "the cat sat", "on a mat"), want: "Word Error Rate: 16.666666666666664%, accuracy=83.33333333333334%"},
		{name: "int8", dtype: "int8", log: whisperLog(1, "the cat sat", "on the mat"), want: "Word Error Rate: 0.0%, accuracy=100.0%"},
		{name: "int16", dtype: "int16", log: whisperLog(2, "the cats sat", "on the mat"), want: "Word Error Rate: 16.666666666666664%, accuracy=83.33333333333334%"},
		{name: "int32 reads C longs", dtype: "int32", log: whisperLog(8, "the cat sat"), want: "Word Error Rate: 0.0%, accuracy=100.0%"},
		{name: "int32 of 4 bytes", dtype: "int32", log: whisperLog(4, "the"), err: "12 bytes are not whole 8-byte int32 values"},
		{name: "unknown dtype", dtype: "float32", log: "[]", err: `response dtype "float32"`},
		{name: "index outside the alphabet", log: `[{"seq_id": 0, "qsl_idx": 0, "data": "2A00000000000000"}]`, err: "character index 42 is outside"},
		{name: "negative index", dtype: "int8", log: `[{"seq_id": 0, "qsl_idx": 0, "data": "FF"}]`, err: "character index -1 is outside"},
		{name: "qsl_idx without reference", log: `[{"seq_id": 0, "qsl_idx": 2, "data": ""}]`, err: "qsl_idx 2: the manifest has 2 utterances"},
		{name: "no words", log: "[]", err: "have no word"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := WER(strings.NewReader(tt.log), refs, n, tt.dtype)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Text())
		})
	}
}

// TestReadWhisperManifest: the utterances the script keeps and the
// characters of their transcripts it keeps.
func TestReadWhisperManifest(t *testing.T) {
	t.Parallel()
	refs, err := ReadWhisperManifest(strings.NewReader(`[
		{"transcript": "Hello, World's 2nd!", "original_duration": 2.5},
		{"transcript": "too long", "original_duration": 30.5},
		{"transcript": null, "original_duration": 1},
		{"transcript": ["x"], "original_duration": 1},
		{"transcript": "at thirty", "original_duration": 30}]`))
	require.NoError(t, err)
	assert.Equal(t, []string{"ello orld's 2nd", "at thirty"}, refs)

	_, err = ReadWhisperManifest(strings.NewReader(`[{"transcript": "a"}]`))
	assert.ErrorContains(t, err, "utterance 0: no original_duration")
	_, err = ReadWhisperManifest(strings.NewReader(`[{"text_filepath": "a.txt", "original_duration": 1}]`))
	assert.ErrorContains(t, err, "utterance 0: no transcript")
	_, err = ReadWhisperManifest(strings.NewReader(`{}`))
	assert.ErrorContains(t, err, "want a JSON array of utterances")
}

// FuzzWhisper: the normalizer never fails on any text, and a manifest
// and a log of any bytes give a score or an error.
func FuzzWhisper(f *testing.F) {
	f.Add("one point two point three and a half dollars", `[{"transcript": "a b", "original_duration": 1}]`)
	f.Add("double o seven $0 05 twenty ninth", `[{"transcript": 3, "original_duration": 40}]`)
	n := NewEnglishNormalizer(map[string]string{"colour": "color"})
	f.Fuzz(func(t *testing.T, text, manifest string) {
		_ = n.Normalize(text)
		refs, err := ReadWhisperManifest(strings.NewReader(manifest))
		if err != nil {
			return
		}
		_, _ = WER(strings.NewReader(whisperLog(8, strings.Map(func(c rune) rune {
			if strings.ContainsRune(WhisperLabels, c) {
				return c
			}
			return -1
		}, text))), refs, n, "")
	})
}

// TestReadWhisperUtterances: the samples the reference's Manifest keeps
// (its QSL's and accuracy_eval.py's), with their manifest entry and the
// audio file of speed 1.
func TestReadWhisperUtterances(t *testing.T) {
	t.Parallel()
	utts, err := ReadWhisperUtterances(strings.NewReader(`[
		{"transcript": "A b,c", "original_duration": 2, "files": [{"fname": "x/a.wav", "speed": 0.9}, {"fname": "x/b.wav", "speed": 1}]},
		{"transcript": "long", "original_duration": 30.01, "files": [{"fname": "c.wav", "speed": 1}]},
		{"transcript": null, "original_duration": 1, "files": [{"fname": "d.wav", "speed": 1}]},
		{"transcript": "e", "original_duration": 30}]`))
	require.NoError(t, err)
	assert.Equal(t, []WhisperUtterance{
		{Entry: 0, Transcript: " bc", Audio: "x/b.wav", Duration: 2},
		{Entry: 3, Transcript: "e", Duration: 30},
	}, utts)
}
