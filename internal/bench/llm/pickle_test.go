package llm

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/dataset/datasettest"
)

// TestPicklePrompts: OpenOrca's pickle as the Llama 2 reference reads it,
// written by WritePicklePrompts, is read directly, as pandas reads it
// where Debian's python3-pandas is installed.
func TestPicklePrompts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "open_orca_gpt4_tokenized_llama.sampled_24576.pkl")
	require.NoError(t, WritePicklePrompts(path, [][]int32{{1, 2, 3}, {1, 32000}}, []string{"one", "two"}))
	require.True(t, PickleReader.Last, "tried after the readers of other pickles")
	require.True(t, PickleReader.Is(path, dataset.Options{}))
	d, err := PickleReader.Open(path, dataset.Options{})
	require.NoError(t, err)
	assert.Equal(t, "input_ids int32[-1]", d.Schema().String())
	assert.Contains(t, dataset.Form(d), "pandas DataFrame pickle")
	all := datasettest.ReadAll(t, d)
	assert.Equal(t, []byte{1, 0, 0, 0, 0, 0x7d, 0, 0}, all[1])
	p, err := ReadPrompts(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"one", "two"}, p.Targets)
	targets, err := ROUGEScorer.Targets(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"one", "two"}, targets)

	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pandas").Run(); err != nil {
		t.Skipf("no python3 with pandas to read the pickle back: %v", err)
	}
	out, err := exec.Command(py, "-c", `import sys, pandas as pd
d = pd.read_pickle(sys.argv[1])
print(d["tok_input"].tolist(), d["output"][1])`, path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "[[1, 2, 3], [1, 32000]] two\n", string(out))
}

// TestPicklePromptsMalformed: a frame the reference could not read is an
// error naming the file and the row.
func TestPicklePromptsMalformed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		cols []pickle.Column
		err  string
	}{
		{name: "no tok_input", cols: []pickle.Column{{Name: "output", Cells: []any{"a"}}}, err: `no column "tok_input"`},
		{name: "text tokens", cols: []pickle.Column{{Name: "tok_input", Cells: []any{[]int32{1}, "x"}}, {Name: "output", Cells: []any{"a", "b"}}},
			err: `corrupt data set file: row 1: "tok_input" is not a list of token ids`},
		{name: "negative id", cols: []pickle.Column{{Name: "tok_input", Cells: []any{[]int64{-1}}}, {Name: "output", Cells: []any{"a"}}},
			err: "corrupt data set file: row 0: token id -1"},
		{name: "numeric output", cols: []pickle.Column{{Name: "tok_input", Cells: []any{[]int32{1}}}, {Name: "output", Cells: []any{int64(4)}}},
			err: `corrupt data set file: row 0: "output" is not text`},
	}
	// A pickle that is no DataFrame is the prompts reader's (the last
	// reader of a .pkl), which says what it holds.
	notFrame := filepath.Join("..", "..", "benchlib", "pickle", "testdata", "files_p4.pkl")
	require.True(t, PickleReader.Is(notFrame, dataset.Options{}))
	_, err := PickleReader.Open(notFrame, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, "files_p4.pkl: pandas DataFrame: the pickle holds a dict")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, tt.name+".pkl")
			require.NoError(t, pickle.WriteFrameFile(path, tt.cols))
			_, err := OpenPrompts(path)
			require.ErrorIs(t, err, dataset.ErrCorrupt)
			assert.ErrorContains(t, err, path)
			assert.ErrorContains(t, err, tt.err)
		})
	}
}
