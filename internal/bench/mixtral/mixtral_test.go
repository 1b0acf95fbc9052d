package mixtral

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
	"github.com/mlperf-host/mlperf-host/internal/dataset/datasettest"
)

var update = flag.Bool("update", false, "rewrite the fixture under testdata")

// fixtureDir holds the fixture: tokenizer.json (tools/accuracyref/llm_fixture.py's
// byte tokenizer: byte b is id b+3, <unk> <s> </s> are 0..2), data.pkl
// and mlperf_log_accuracy.json, which TestFixture rewrites with -update.
var fixtureDir = filepath.Join("testdata", "mixtral")

// byteIDs is text in the fixture's tokenizer.
func byteIDs(text string) []int32 {
	ids := make([]int32, len(text))
	for i := range len(text) {
		ids[i] = int32(text[i]) + 3
	}
	return ids
}

// fixtureRow is a data set row and what the log generates for it (""
// for a row the log leaves out).
type fixtureRow struct {
	row  Row
	pred string
}

// fixtureRows are the data set and what the log generates for each row
// ("" for a row the log leaves out: the MBXP one).
var fixtureRows = []fixtureRow{
	{Row{Kind: OpenOrca, Target: "The Eiffel Tower is in Paris. It was built in 1889 by Gustave Eiffel's company. Mr. Smith visited it twice."},
		"The Eiffel tower stands in Paris. It was finished in 1889. Mr. Smith went there twice!"},
	{Row{Kind: GSM8K, Target: "18"}, "Janet sells 16 - 3 - 4 = 9 eggs, at $2 each: 9 * 2 = 18. The answer is 18."},
	{Row{Kind: OpenOrca, Target: "Photosynthesis turns light into chemical energy. Plants, algae and some bacteria do it."},
		"Plants use photosynthesis to turn light into energy.  Algae do it too."},
	// The text before "\nQ:" has no delimiter: its last number, 2.
	{Row{Kind: GSM8K, Target: "3"}, "She has 1,234 apples and gives 2 away.\nQ: What is 5+5? The answer is 10."},
	{Row{Kind: GSM8K, Target: "70000"}, "The house costs 70,000 dollars. The answer is 70,000 dollars."},
	{Row{Kind: GSM8K, Target: "-4"}, "The temperature drops to -4 degrees."},
	// No number after the delimiter: the text's last, 1.5.
	{Row{Kind: GSM8K, Target: "1.5"}, "Each gets .5 plus 1 = 1.5; The answer is: one and a half"},
	// Python's \d and float() read Arabic-Indic digits.
	{Row{Kind: GSM8K, Target: " 42\n"}, "The answer is \u0664\u0662."},
	{Row{Kind: GSM8K, Target: "7"}, "I cannot tell."},
	{Row{Kind: OpenOrca, Target: "Yes."}, "No, I don't think so ... maybe yes."},
	{Row{Kind: MBXP, ID: "python_add", Input: "def add(a, b):\n", Target: "assert add(1, 2) == 3\n"}, ""},
}

// writeFixture writes the data set of rows (data, a pickle) and its
// log (log) into dir: the log's responses in int32, special tokens
// around some, row 1 logged twice.
func writeFixture(t *testing.T, dir, data, log string, fixture []fixtureRow) {
	t.Helper()
	rows := make([]Row, len(fixture))
	var entries []accuracy.Entry
	for i, r := range fixture {
		rows[i] = r.row
		rows[i].Tokens = byteIDs("prompt " + r.row.Target)
		if r.pred == "" {
			continue
		}
		ids := byteIDs(r.pred)
		if i%3 == 0 {
			ids = append(append([]int32{1}, ids...), 2)
		}
		var b []byte
		for _, id := range ids {
			b = binary.LittleEndian.AppendUint32(b, uint32(id))
		}
		entries = append(entries, accuracy.Entry{SeqID: uint64(len(entries)), QSLIdx: uint64(i), Data: b})
		if i == 1 {
			entries = append(entries, accuracy.Entry{SeqID: uint64(len(entries)), QSLIdx: uint64(i), Data: b})
		}
	}
	require.NoError(t, WriteData(filepath.Join(dir, data), rows))
	var b bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&b, entries))
	require.NoError(t, os.WriteFile(filepath.Join(dir, log), b.Bytes(), 0o644))
}

// checkFixture: the committed files data and log are what writeFixture
// writes of rows (rewritten with -update).
func checkFixture(t *testing.T, data, log string, rows []fixtureRow) {
	t.Helper()
	dir := t.TempDir()
	writeFixture(t, dir, data, log, rows)
	for _, f := range []string{data, log} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		if *update {
			require.NoError(t, os.WriteFile(filepath.Join(fixtureDir, f), got, 0o644))
		}
		want, err := os.ReadFile(filepath.Join(fixtureDir, f))
		require.NoError(t, err)
		assert.Equal(t, want, got, "%s: rerun with -update", f)
	}
}

// TestFixture: the committed fixture is what writeFixture writes, and
// its line is what the official evaluate-accuracy.py prints on it
// (tools/accuracyref/verify.sh runs it, with the stand-ins of
// tools/accuracyref/shims for what Debian lacks).
func TestFixture(t *testing.T) {
	t.Parallel()
	checkFixture(t, "data.pkl", "mlperf_log_accuracy.json", fixtureRows)
	log, err := os.Open(filepath.Join(fixtureDir, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer log.Close()
	s, err := Scorer.Score(log, accuracy.Inputs{Truth: filepath.Join(fixtureDir, "data.pkl"), Vocab: filepath.Join(fixtureDir, "tokenizer.json"), Dtype: "int32"})
	require.NoError(t, err)
	assert.Equal(t, "{'rouge1': 53.029, 'rouge2': 22.029, 'rougeL': 50.3624, 'rougeLsum': 53.029, 'gsm8k': 71.42857142857143, 'mbxp': 0, 'gen_len': 190, 'gen_num': 11, 'gen_tok_len': 531, 'tokens_per_sample': 48.3}", s.Text())
	for m, want := range map[string]float64{"gsm8k_accuracy": 100.0 * 5 / 7, "ROUGE1": 53.029, "mbxp_accuracy": 0} {
		v, ok := s.Value(benchmarks.Metric(m))
		assert.True(t, ok, m)
		assert.InDelta(t, want, v, 1e-9, m)
	}
	d, ok := s.(accuracy.Detailer)
	require.True(t, ok)
	assert.Empty(t, d.Details(), "no MBXP sample: nothing of evaluate_mbxp.py's")
}

// TestReader: the data set pickle opens as prompts of int32 token ids.
func TestReader(t *testing.T) {
	t.Parallel()
	path := filepath.Join(fixtureDir, "data.pkl")
	require.True(t, Reader.Is(path, dataset.Options{}))
	d, err := Reader.Open(path, dataset.Options{})
	require.NoError(t, err)
	assert.Equal(t, "input_ids int32[-1]", d.Schema().String())
	assert.Equal(t, len(fixtureRows), d.Len())
	assert.Contains(t, dataset.Form(d), "Mixtral")
	assert.Equal(t, path, dataset.Truth(d))
	all := datasettest.ReadAll(t, d)
	assert.Equal(t, []byte{'p' + 3, 0, 0, 0}, all[0][:4])
	data, err := ReadData(path)
	require.NoError(t, err)
	assert.Equal(t, "python_add", data.IDs[len(fixtureRows)-1])
}

// TestMalformed: what the reference could not read is an error naming
// the file and the row; a log without GSM8K samples is not scored.
func TestMalformed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pkl")
	require.NoError(t, pickle.WriteFrameFile(bad, []pickle.Column{
		{Name: "dataset", Cells: []any{"GSM8K", int64(3)}}, {Name: "tok_input", Cells: []any{[]int32{1}, []int32{2}}}, {Name: "gt_output", Cells: []any{"1", "2"}},
	}))
	_, err := Open(bad)
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, bad+`: corrupt data set file: row 1: "dataset" is not text`)
	assert.False(t, Reader.Is(filepath.Join("..", "..", "benchlib", "pickle", "testdata", "files_p4.pkl"), dataset.Options{}))

	score := func(kind string) error {
		data := filepath.Join(dir, kind+".pkl")
		require.NoError(t, WriteData(data, []Row{{Kind: kind, Tokens: []int32{5}, Target: "1"}}))
		var log bytes.Buffer
		require.NoError(t, accuracy.WriteLog(&log, []accuracy.Entry{{QSLIdx: 0, Data: []byte{40, 0, 0, 0}}}))
		_, err := Scorer.Score(&log, accuracy.Inputs{Truth: data, Vocab: filepath.Join(fixtureDir, "tokenizer.json"), Dtype: "int32"})
		return err
	}
	require.ErrorContains(t, score(OpenOrca), "no GSM8K sample")
}
