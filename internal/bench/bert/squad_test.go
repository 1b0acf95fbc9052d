package bert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

func readSQuADFixture(t *testing.T) *SQuAD {
	t.Helper()
	dir := filepath.Join("testdata", "squad")
	vf, err := os.Open(filepath.Join(dir, "vocab.txt"))
	require.NoError(t, err)
	defer vf.Close()
	vocab, err := ReadVocab(vf)
	require.NoError(t, err)
	df, err := os.Open(filepath.Join(dir, "dev-v1.1.json"))
	require.NoError(t, err)
	defer df.Close()
	s, err := ReadSQuAD(df, vocab)
	require.NoError(t, err)
	return s
}

// The fixture testdata/squad (six questions, one context longer than a
// sequence, a vocabulary with WordPieces and a missing word, a feature
// not answered, responses shorter than 384, a duplicate entry) is
// written by tools/accuracyref/make_fixtures.py; the expected line is
// what the official accuracy-squad.py prints on it
// (tools/accuracyref/verify.sh, with the BERT tokenizer stand-in of
// tools/accuracyref/shims).
func TestSQuADFixture(t *testing.T) {
	t.Parallel()
	s := readSQuADFixture(t)
	f, err := os.Open(filepath.Join("testdata", "squad", "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer f.Close()
	res, err := s.Score(f, "")
	require.NoError(t, err)
	assert.Equal(t, `{"exact_match": 33.333333333333336, "f1": 46.666666666666664}`, res.Text())
}

func TestBERTTokenize(t *testing.T) {
	t.Parallel()
	v := Vocab{"[UNK]": 1, "un": 2, "##aff": 3, "##able": 4, "cafe": 5, ",": 6, "(": 7, ")": 8, "1895": 9, "-": 10}
	tests := []struct{ in, want string }{
		{in: "unaffable", want: "un ##aff ##able"},
		// Lower case, accents stripped, punctuation split, control characters dropped.
		{in: "CAFÉ,\x00(1895-1895)", want: "cafe , ( 1895 - 1895 )"},
		{in: "unknown words", want: "[UNK] [UNK]"},
		{in: "  \t", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, strings.Join(v.Tokenize(tt.in), " "))
		})
	}
	assert.Equal(t, []string{"中", "文", "x"}, bertBasicTokenize("中文x"), "CJK characters are words")
}

func TestSQuADHelpers(t *testing.T) {
	t.Parallel()
	// BERT's own example: the prediction projected onto the original text.
	assert.Equal(t, "Steve Smith", squadFinalText("steve smith", "Steve Smith's"))
	assert.Equal(t, "Café Müller", squadFinalText("cafe muller", "Café Müller,"))
	assert.Equal(t, "nowhere", squadFinalText("steve", "nowhere"), "no alignment: the original text")

	assert.Equal(t, "cat sat on mat", squadNormalize("The cat, sat on  the mat!"))
	assert.Equal(t, "theater anagram", squadNormalize("theater an anagram"), "articles only as whole words")
	assert.InDelta(t, 1.0, squadF1("the Cat sat", "cat sat"), 1e-15)
	assert.InDelta(t, 2*0.5*1.0/1.5, squadF1("cat sat", "cat"), 1e-15)
	assert.Zero(t, squadF1("dog", "cat"))

	for f, want := range map[float64]string{100: "100.0", 0: "0.0", 33.333333333333336: "33.333333333333336", 1e-5: "1e-05"} {
		assert.Equal(t, want, py.Float(f))
	}
	assert.InDelta(t, 1.5, halfOrSingle([]byte{0x00, 0x3e}, 2), 0)
	assert.InDelta(t, -2.0, halfOrSingle([]byte{0x00, 0xc0}, 2), 0)
}

func TestSQuADErrors(t *testing.T) {
	t.Parallel()
	s := readSQuADFixture(t)
	tests := []struct {
		name, dtype string
		entries     []accuracy.Entry
		err         string
	}{
		{name: "dtype", dtype: "int8", err: `dtype "int8"`},
		{name: "no feature", entries: []accuracy.Entry{{QSLIdx: uint64(s.Features()), Data: accuracytest.F32(0, 0)}}, err: "has no feature"},
		{name: "odd", entries: []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(0, 0, 0)}}, err: "[start, end] pairs"},
		{name: "too long", entries: []accuracy.Entry{{QSLIdx: 0, Data: make([]byte, 8*385)}}, err: "at most 384"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.Score(accuracytest.Log(t, tt.entries), tt.dtype)
			require.ErrorIs(t, err, accuracy.ErrLog)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	_, err := ReadVocab(strings.NewReader("a\nb\n"))
	require.ErrorContains(t, err, "no [UNK]")
}
