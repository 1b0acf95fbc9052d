package llama405b

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

var update = flag.Bool("update", false, "rewrite the fixture under testdata")

// fixture holds tokenizer.json (tools/accuracyref/llm_fixture.py's byte
// tokenizer: byte b is id b+3, <unk> <s> </s> are 0..2), data.pkl and
// mlperf_log_accuracy.json, which TestFixture rewrites with -update.
var fixture = filepath.Join("testdata", "llama405b")

// samples are the data set's references and metrics, and what the log
// generates for each.
var samples = []struct{ metric, target, pred string }{
	{MetricROUGE, "The report covers sales in 2023. Revenue grew by ten percent. Costs fell.", "Revenue grew ten percent in 2023, the report says. Costs fell sharply."},
	{MetricNIAH, "The special magic uuid is 3f2a9c1e-7b4d-4e2a-9f1c-0a1b2c3d4e5f.", "The uuid is 3F2A9C1E-7B4D-4E2A-9F1C-0A1B2C3D4E5F."},
	{MetricQA, "Paris|paris, France", "Let me think. Answer: Paris"},
	// Two generated UUIDs, one reference UUID: the share is halved.
	{MetricNIAH, "Numbers: 11111111-2222-3333-4444-555555555555 and 66666666-7777-8888-9999-000000000000.",
		"66666666-7777-8888-9999-000000000000 then 12345678-1234-1234-1234-123456789abc"},
	{MetricQA, "Mount Everest", "Answer: It is mount   everest, the highest."},
	{MetricROUGE, "Short.", "A much longer answer than the reference."},
	{MetricQA, "42", "Answer: forty-two"},
	{MetricNIAH, "The uuid is aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.", "I do not know."},
	{MetricQA, "blue whale|whale", "The largest animal is the blue whale."},
}

// writeFixture writes data.pkl and the int32 log into dir: special
// tokens around every third response, sample 2 logged twice.
func writeFixture(t *testing.T, dir string) {
	t.Helper()
	ids := func(s string) []int32 {
		out := make([]int32, len(s))
		for i := range len(s) {
			out[i] = int32(s[i]) + 3
		}
		return out
	}
	rows := make([]Row, len(samples))
	var entries []accuracy.Entry
	for i, s := range samples {
		rows[i] = Row{Tokens: ids("question " + s.target), Target: s.target, Metric: s.metric}
		var data []byte
		if i%3 == 1 {
			data = binary.LittleEndian.AppendUint32(data, 1)
		}
		for _, id := range ids(s.pred) {
			data = binary.LittleEndian.AppendUint32(data, uint32(id))
		}
		entries = append(entries, accuracy.Entry{SeqID: uint64(len(entries)), QSLIdx: uint64(i), Data: data})
		if i == 2 {
			entries = append(entries, accuracy.Entry{SeqID: uint64(len(entries)), QSLIdx: uint64(i), Data: data})
		}
	}
	require.NoError(t, WriteData(filepath.Join(dir, "data.pkl"), rows))
	var log bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&log, entries))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mlperf_log_accuracy.json"), log.Bytes(), 0o644))
}

// TestFixture: the committed fixture is what writeFixture writes; its
// line is what the official evaluate-accuracy.py prints on it
// (tools/accuracyref/verify.sh runs it, with the stand-ins of
// tools/accuracyref/shims for what Debian lacks).
func TestFixture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFixture(t, dir)
	for _, f := range []string{"data.pkl", "mlperf_log_accuracy.json"} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		if *update {
			require.NoError(t, os.WriteFile(filepath.Join(fixture, f), got, 0o644))
		}
		want, err := os.ReadFile(filepath.Join(fixture, f))
		require.NoError(t, err)
		assert.Equal(t, want, got, "%s: rerun with -update", f)
	}
	log, err := os.Open(filepath.Join(fixture, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer log.Close()
	s, err := Scorer.Score(log, accuracy.Inputs{Truth: filepath.Join(fixture, "data.pkl"), Vocab: filepath.Join(fixture, "tokenizer.json"), Dtype: "int32"})
	require.NoError(t, err)
	assert.Equal(t, "{'rougeL': 24.000000000000004, 'exact_match': 62.69857142857143, 'gen_len': 375, 'gen_num': 9, 'gen_tok_len': 378, 'tokens_per_sample': 42.0}", s.Text())
	v, ok := s.Value(benchmarks.ExactMatch)
	assert.True(t, ok)
	assert.InDelta(t, 62.69857142857143, v, 1e-12)
	v, _ = s.Value(benchmarks.TokensPerSample)
	assert.InDelta(t, 42.0, v, 0)
	_, ok = s.Value("ROUGE1")
	assert.False(t, ok)
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, label, pred string
		niah              bool
		want              float64
	}{
		{name: "uuid found, case aside", label: "x 3f2a9c1e-7b4d-4e2a-9f1c-0a1b2c3d4e5f", pred: "3F2A9C1E-7B4D-4E2A-9F1C-0A1B2C3D4E5F", niah: true, want: 100},
		// niah_em counts the reference UUID's characters found anywhere in
		// the generated one: all but the three f, 33 of 36.
		{name: "characters, not places", label: "3f2a9c1e-7b4d-4e2a-9f1c-0a1b2c3d4e5f", pred: "3e2a9c1e-7b4d-4e2a-9e1c-0a1b2c3d4e5e", niah: true, want: 91.67},
		{name: "no uuid generated", label: "3f2a9c1e-7b4d-4e2a-9f1c-0a1b2c3d4e5f", pred: "none", niah: true, want: 0},
		{name: "answer in label", label: "Paris|Lyon", pred: "Answer: Lyon", want: 100},
		{name: "entry in answer", label: "New York|NYC", pred: "Answer: it is new york city", want: 100},
		{name: "no match", label: "Rome", pred: "Answer: Paris", want: 0},
		// An empty answer is in every label.
		{name: "empty answer", label: "Rome", pred: "Answer: ", want: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := qaEM(tt.label, tt.pred)
			if tt.niah {
				got = niahEM(tt.label, tt.pred)
			}
			assert.InDelta(t, tt.want, got, 0)
		})
	}
}

// TestReader: the data set pickle opens as prompts of int32 token ids;
// a metric the script does not know, or a missing column, is an error
// naming the file and the row.
func TestReader(t *testing.T) {
	t.Parallel()
	path := filepath.Join(fixture, "data.pkl")
	require.True(t, Reader.Is(path, dataset.Options{}))
	d, err := Reader.Open(path, dataset.Options{})
	require.NoError(t, err)
	assert.Equal(t, len(samples), d.Len())
	assert.Equal(t, Form, dataset.Form(d))
	assert.Equal(t, path, dataset.Truth(d))

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pkl")
	require.NoError(t, WriteData(bad, []Row{{Tokens: []int32{1}, Target: "a", Metric: "rouge"}, {Tokens: []int32{1}, Target: "b", Metric: "bleu"}}))
	_, err = Open(bad)
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, bad+`: corrupt data set file: row 1: metric "bleu"`)
	noMetric := filepath.Join(dir, "nometric.pkl")
	require.NoError(t, pickle.WriteFrameFile(noMetric, []pickle.Column{{Name: "tok_input", Cells: []any{[]int32{1}}}, {Name: "gt_output", Cells: []any{"a"}}}))
	assert.False(t, Reader.Is(noMetric, dataset.Options{}))
	_, err = Open(noMetric)
	assert.ErrorContains(t, err, `no column "metric"`)
}
