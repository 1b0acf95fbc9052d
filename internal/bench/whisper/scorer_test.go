package whisper

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

// TestWhisperFixture: testdata/whisper (tools/accuracyref/make_fixtures.py)
// holds a manifest whose transcripts exercise the normalizer, with an
// utterance over 30 s and one whose transcript is not a string, a small
// spelling table and an int64 log with a repeated qsl_idx. The line is
// what the official speech2text/accuracy_eval.py prints on them, run by
// tools/accuracyref/verify.sh over the normalizer stand-in of
// tools/accuracyref/shims/whisper (openai-whisper is not installable
// here).
func TestWhisperFixture(t *testing.T) {
	t.Parallel()
	td := filepath.Join("testdata", "whisper")
	sc := Scorer
	in := accuracy.Inputs{Truth: filepath.Join(td, "manifest.json"), Vocab: filepath.Join(td, "english.json")}
	log, err := os.ReadFile(filepath.Join(td, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	s, err := sc.Score(bytes.NewReader(log), in)
	require.NoError(t, err)
	assert.Equal(t, "Word Error Rate: 10.666666666666668%, accuracy=89.33333333333333%", s.Text())
	v, ok := s.Value(WordAccuracy)
	assert.True(t, ok)
	assert.InDelta(t, 89.333333, v, 1e-6)

	for _, tt := range []struct{ name, vocab, want string }{
		{name: "no spelling table", want: "no spelling table (--vocab): the normalizer reads openai-whisper's normalizers/english.json"},
		{name: "missing file", vocab: filepath.Join(td, "absent.json"), want: "absent.json: no such file"},
		{name: "not a table", vocab: filepath.Join(td, "manifest.json"), want: "want a JSON object of words to words"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := sc.Score(bytes.NewReader(log), accuracy.Inputs{Truth: in.Truth, Vocab: tt.vocab})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
