package llm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/dataset/datasettest"
)

func TestPrompts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := filepath.Join(dir, "cnn_eval.json")
	require.NoError(t, WritePrompts(recs, [][]int32{{1, 2, 3}, {128000, 5}}, []string{"one", "two"}))
	cols := filepath.Join(dir, "cols.json")
	require.NoError(t, os.WriteFile(cols, []byte(`{"tok_input": {"1": [128000, 5], "0": [1, 2, 3]}, "output": {"0": "one", "1": "two"}}`), 0o644))
	for _, p := range []string{recs, cols} {
		d, err := Reader.Open(p, dataset.Options{})
		require.NoError(t, err, p)
		assert.Equal(t, "input_ids int32[-1]", d.Schema().String())
		all := datasettest.ReadAll(t, d)
		assert.Equal(t, []byte{0, 0xf4, 1, 0, 5, 0, 0, 0}, all[1])
		pr, err := ReadPrompts(p)
		require.NoError(t, err)
		assert.Equal(t, []string{"one", "two"}, pr.Targets)
	}
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`[{"tok_input": [1]}, {"tok_input": "x"}]`), 0o644))
	_, err := Reader.Open(bad, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, "sample 1")
}
