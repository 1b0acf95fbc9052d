package gptoss

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/parquet"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// TestReadSet reads the decoder fixture's accuracy set through Reader:
// its prompts as int32 samples, its sub-datasets and ground truth, and
// what `dataset info` says of it.
func TestReadSet(t *testing.T) {
	t.Parallel()
	path := filepath.Join(decoderDir, setFile)
	require.True(t, Reader.Is(path, dataset.Options{}))
	d, err := Reader.Open(path, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, 8, d.Len())
	shapes, err := d.Shapes(1)
	require.NoError(t, err)
	assert.Equal(t, [][]int{{3}}, shapes)
	buf := make([]byte, 12)
	require.NoError(t, d.ReadSample(1, buf))
	assert.Equal(t, []byte{1, 0, 0, 0, 5, 0, 0, 0, 40, 0, 0, 0}, buf)
	assert.Error(t, d.ReadSample(1, buf[:8]))
	_, err = d.Shapes(8)
	assert.ErrorContains(t, err, "sample index 8 out of range [0, 8)")
	assert.Equal(t, "gpt-oss-120b prompts of token ids (the reference's pickled DataFrame, with ground truth: an accuracy set); "+
		"prompt length min 2, max 3, mean 2.2; aime25 4, gpqa_diamond 4", dataset.Form(d))
	assert.Equal(t, path, dataset.Truth(d))

	s, err := ReadSet(path)
	require.NoError(t, err)
	assert.Equal(t, "gpqa_diamond", s.Datasets[3])
	assert.Equal(t, []any{"42", "12", "7", "C", "B", "A", "D", int64(5)}, s.Truth)
}

// TestReadSetPerformance: a performance set has prompts alone; the
// reference's older column name tok_input is read first, as
// load_tokenized_dataset reads it.
func TestReadSetPerformance(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "perf_eval_ref.pkl")
	require.NoError(t, pickle.WriteFrameFile(path, []pickle.Column{
		{Name: "input_tokens", Cells: []any{[]int64{9, 9}, []int64{9}}}, {Name: "tok_input", Cells: []any{[]int64{1, 2, 3}, []int64{4}}}}))
	d, err := Reader.Open(path, dataset.Options{})
	require.NoError(t, err)
	assert.Equal(t, "gpt-oss-120b prompts of token ids (the reference's pickled DataFrame, no ground truth: a performance set); "+
		"prompt length min 1, max 3, mean 2.0", dataset.Form(d))
	s, err := ReadSet(path)
	require.NoError(t, err)
	assert.Equal(t, [][]int32{{1, 2, 3}, {4}}, s.Tokens)
	assert.Nil(t, s.Datasets)
}

func writePickle(t *testing.T, path string, p *pickle.Writer) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, p.Encode(f))
	require.NoError(t, f.Close())
}

// TestReadSetErrors: what is not a data set of prompts fails naming the
// file and, where one is at fault, the sample.
func TestReadSetErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name  string
		frame []pickle.Column
		err   string
	}{
		{name: "no prompts", frame: []pickle.Column{{Name: "question", Cells: []any{"q"}}}, err: `no "tok_input" or "input_tokens" column of tokenized prompts (columns question)`},
		{name: "a prompt that is text", frame: []pickle.Column{{Name: "input_tokens", Cells: []any{[]int64{1}, "hello"}}}, err: `corrupt data set file: row 1: "input_tokens" is not a list of token ids`},
		{name: "an empty prompt", frame: []pickle.Column{{Name: "input_tokens", Cells: []any{[]int64{}}}}, err: `corrupt data set file: row 0: "input_tokens" is not a list of token ids`},
		{name: "a token beyond int32", frame: []pickle.Column{{Name: "input_tokens", Cells: []any{[]int64{1 << 40}}}}, err: "corrupt data set file: row 0: token id 1099511627776"},
		{name: "no rows", frame: []pickle.Column{{Name: "input_tokens", Cells: []any{}}}, err: "no rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, tt.name+".pkl")
			require.NoError(t, pickle.WriteFrameFile(path, tt.frame))
			_, err := ReadSet(path)
			require.ErrorIs(t, err, dataset.ErrCorrupt)
			assert.ErrorContains(t, err, path+": ")
			assert.ErrorContains(t, err, tt.err)
		})
	}
	list := filepath.Join(dir, "list.pkl")
	var p pickle.Writer
	p.Op(']')
	writePickle(t, list, &p)
	_, err := ReadSet(list)
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, "pandas DataFrame: the pickle holds a list")
	assert.False(t, Reader.Is(list, dataset.Options{}), "a pickle that is no DataFrame is not claimed")
	assert.False(t, Reader.Is(filepath.Join(decoderDir, logFile), dataset.Options{}))
}

// TestWriteSetPandas: pandas reads the fixture's accuracy set as the
// reference's load_tokenized_dataset and eval_mlperf_accuracy.py do,
// where Debian's python3-pandas is installed.
func TestWriteSetPandas(t *testing.T) {
	t.Parallel()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pandas").Run(); err != nil {
		t.Skipf("no python3 with pandas: %v", err)
	}
	out, err := exec.Command(py, "-c", `import sys, pandas as pd
df = pd.read_pickle(sys.argv[1])
print(df.shape, list(df.columns), df["dataset"].value_counts().to_dict(), [x.tolist() for x in df["input_tokens"][:2]], list(df["ground_truth"]))`,
		filepath.Join(decoderDir, setFile)).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "(8, 3) ['input_tokens', 'dataset', 'ground_truth'] {'aime25': 4, 'gpqa_diamond': 4} [[1, 20], [1, 5, 40]] ['42', '12', '7', 'C', 'B', 'A', 'D', 5]\n", string(out))
}

// TestReaderClaims: Reader claims gpt-oss-120b's DataFrames alone, and
// leaves the other LLM references' (tokenized prompts in tok_input
// without gpt-oss's sub-datasets) to their readers.
func TestReaderClaims(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name  string
		frame []pickle.Column
		want  bool
	}{
		{name: "input_tokens", frame: []pickle.Column{{Name: "input_tokens", Cells: []any{[]int64{1}}}}, want: true},
		{name: "tok_input and gpt-oss sub-datasets", frame: []pickle.Column{{Name: "tok_input", Cells: []any{[]int64{1}, []int64{2}}}, {Name: "dataset", Cells: []any{"AIME25", "gpqa_diamond"}}}, want: true},
		// OpenOrca's (llama2-70b) and DeepSeek-R1's pickles.
		{name: "tok_input alone", frame: []pickle.Column{{Name: "tok_input", Cells: []any{[]int64{1}}}, {Name: "output", Cells: []any{"text"}}}},
		{name: "another sub-dataset", frame: []pickle.Column{{Name: "tok_input", Cells: []any{[]int64{1}, []int64{2}}}, {Name: "dataset", Cells: []any{"aime25", "math500"}}}},
		{name: "no prompts", frame: []pickle.Column{{Name: "dataset", Cells: []any{"aime25"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, tt.name+".pkl")
			require.NoError(t, pickle.WriteFrameFile(path, tt.frame))
			assert.Equal(t, tt.want, Reader.Is(path, dataset.Options{}))
		})
	}
}

// TestReadParquet: the decoder's accuracy set in the reference's Parquet
// form reads as its pickle does, and scores the decoder's log as the
// official script scored it on the pickle.
func TestReadParquet(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "acc_eval_inputs.parquet")
	samples := DecoderAccuracySet()
	samples[7].Truth = "5" // a Parquet column holds one type: the strings
	require.NoError(t, WriteParquetSet(path, samples, true))
	require.True(t, Reader.Is(path, dataset.Options{}))
	d, err := Reader.Open(path, dataset.Options{})
	require.NoError(t, err)
	assert.Equal(t, "gpt-oss-120b prompts of token ids (the reference's Parquet file, with ground truth: an accuracy set); "+
		"prompt length min 2, max 3, mean 2.2; aime25 4, gpqa_diamond 4", dataset.Form(d))
	got, err := ReadSet(path)
	require.NoError(t, err)
	want, err := ReadSet(filepath.Join(decoderDir, setFile))
	require.NoError(t, err)
	assert.Equal(t, want.Tokens, got.Tokens)
	assert.Equal(t, want.Datasets, got.Datasets)
	assert.Equal(t, []any{"42", "12", "7", "C", "B", "A", "D", "5"}, got.Truth)

	f, err := os.Open(filepath.Join(decoderDir, logFile))
	require.NoError(t, err)
	defer f.Close()
	s, err := Scorer.Score(f, accuracy.Inputs{Truth: path, Vocab: filepath.Join(decoderDir, "tokenizer.json")})
	require.NoError(t, err)
	official, err := os.ReadFile(filepath.Join(decoderDir, stdoutFile))
	require.NoError(t, err)
	assert.Equal(t, string(official), s.(Result).Report())

	perf := filepath.Join(t.TempDir(), "perf_eval_ref.parquet")
	require.NoError(t, WriteParquetSet(perf, []Sample{{Tokens: []int64{1, 2}}, {Tokens: []int64{3}}}, false))
	p, err := ReadSet(perf)
	require.NoError(t, err)
	assert.Equal(t, [][]int32{{1, 2}, {3}}, p.Tokens)
	assert.Nil(t, p.Truth)
}

// TestReadParquetErrors: a Parquet file that is not a set of prompts
// fails naming the file and, where one is at fault, the sample.
func TestReadParquetErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, fields []parquet.Field, rows [][]any) string {
		var b bytes.Buffer
		require.NoError(t, parquet.Write(&b, fields, rows, parquet.WriteOptions{}))
		path := filepath.Join(dir, name+".parquet")
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
		return path
	}
	tests := []struct {
		name string
		path string
		err  string
	}{
		{name: "no prompts", path: write("noprompts", []parquet.Field{{Name: "question", Kind: parquet.String}}, [][]any{{"q"}}),
			err: `no "tok_input" or "input_tokens" column of tokenized prompts (columns [question])`},
		{name: "prompts of text", path: write("text", []parquet.Field{{Name: "input_tokens", Kind: parquet.StringList}}, [][]any{{[]string{"a"}}}),
			err: `"input_tokens" is a BYTE_ARRAY column, not a list of integers`},
		{name: "a token beyond int32", path: write("big", []parquet.Field{{Name: "input_tokens", Kind: parquet.Int64List}}, [][]any{{[]int64{1}}, {[]int64{1 << 40}}}),
			err: `sample 1: corrupt data set file: "input_tokens": token id 1099511627776`},
		{name: "not parquet", path: filepath.Join(decoderDir, logFile), err: "corrupt data set file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.path
			if tt.name == "not parquet" {
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				path = filepath.Join(dir, "log.parquet")
				require.NoError(t, os.WriteFile(path, b, 0o644))
			}
			_, err := ReadSet(path)
			require.ErrorIs(t, err, dataset.ErrCorrupt)
			assert.ErrorContains(t, err, path)
			assert.ErrorContains(t, err, tt.err)
		})
	}
}
