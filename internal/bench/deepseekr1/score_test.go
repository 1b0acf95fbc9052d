package deepseekr1

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func inputs(dir string) accuracy.Inputs {
	return accuracy.Inputs{Truth: filepath.Join(dir, "dataset.pkl"), Vocab: filepath.Join(dir, "tokenizer.json"), Dtype: "int32"}
}

// TestScorer: the registered scorer reads the ground truth and the
// tokenizer it is given.
func TestScorer(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "mixed")
	s, err := Scorer.Score(mustOpen(t, filepath.Join(dir, "mlperf_log_accuracy.json")), inputs(dir))
	require.NoError(t, err)
	assert.Equal(t, officialMixed, s.Text())
	v, ok := s.Value(benchmarks.ExactMatch)
	assert.True(t, ok)
	assert.InDelta(t, 61.9047619, v, 1e-6)
	v, ok = s.Value(benchmarks.TokensPerSample)
	assert.True(t, ok)
	assert.InDelta(t, 19.3333333, v, 1e-6)
	_, ok = s.Value("ROUGE1")
	assert.False(t, ok)

	in := inputs(dir)
	in.Vocab = ""
	_, err = Scorer.Score(mustOpen(t, filepath.Join(dir, "mlperf_log_accuracy.json")), in)
	assert.ErrorContains(t, err, "tokenizer")
}

// TestReader: the data set opens as int32 prompts; a pickle that is not
// the reference's is refused naming the file.
func TestReader(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "mixed", "dataset.pkl")
	require.True(t, Reader.Is(path, dataset.Options{}))
	d, err := Reader.Open(path, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, len(mixedCases), d.Len())
	shapes, err := d.Shapes(0)
	require.NoError(t, err)
	assert.Equal(t, [][]int{{len(ByteTokens("gpqa"))}}, shapes)
	buf := make([]byte, 4*shapes[0][0])
	require.NoError(t, d.ReadSample(0, buf))
	assert.Equal(t, []byte{0, 1, 0, 0, 'g', 0, 0, 0}, buf[:8])
	assert.Equal(t, path, dataset.Truth(d))
	assert.Contains(t, dataset.Form(d), "DataFrame")
	_, err = d.Shapes(len(mixedCases))
	assert.Error(t, err)

	other := filepath.Join("..", "..", "benchlib", "pickle", "testdata", "files_p4.pkl")
	assert.False(t, Reader.Is(other, dataset.Options{}))
	_, err = Open(other)
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.Contains(t, err.Error(), other)
}

// TestReadSetBadRow names the row and column of a malformed prompt.
func TestReadSetBadRow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.pkl")
	require.NoError(t, WriteSet(path, []FixtureRow{{Dataset: "gpqa", Truth: "A", Prompt: []int32{1}}, {Dataset: "gpqa", Truth: "B"}}))
	_, err := ReadSet(path, true)
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.Contains(t, err.Error(), path+": ")
	assert.Contains(t, err.Error(), "row 1: ")
	assert.Contains(t, err.Error(), "tok_input")
}

// TestScoreErrors: what eval_accuracy.py refuses, Score refuses.
func TestScoreErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, WriteSet(filepath.Join(dir, "dataset.pkl"), []FixtureRow{{Dataset: "squad", Truth: "A", Prompt: []int32{1}}}))
	require.NoError(t, WriteByteTokenizer(filepath.Join(dir, "tokenizer.json")))
	require.NoError(t, WriteLog(filepath.Join(dir, "log.json"), [][]int32{ByteTokens("x")}))
	_, err := score(mustOpen(t, filepath.Join(dir, "log.json")), inputs(dir))
	assert.ErrorContains(t, err, `no evaluator for data set "squad"`)

	// Entries beyond the data set are skipped; none left is an error.
	require.NoError(t, WriteLog(filepath.Join(dir, "log.json"), nil))
	_, err = score(strings.NewReader(`[{"seq_id": 0, "qsl_idx": 5, "data": "41000000", "token_count": 1}]`), inputs(dir))
	require.ErrorIs(t, err, accuracy.ErrLog)

	in := inputs(dir)
	in.Dtype = "float32"
	_, err = score(strings.NewReader(`[]`), in)
	assert.ErrorContains(t, err, "dtype")
}
