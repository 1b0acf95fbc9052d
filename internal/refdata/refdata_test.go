package refdata

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func readAll(t *testing.T, d dataset.Dataset) [][]byte {
	t.Helper()
	var out [][]byte
	require.NoError(t, dataset.ReadAll(d, func(_ int, _ [][]int, data []byte) error {
		out = append(out, append([]byte(nil), data...))
		return nil
	}))
	return out
}

func TestCriteo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sizes := []int{3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1}
	samples := [][]CriteoRow{{{0.5, 1}, {0.25, 0}}, {{0.75, 1}}, {{0.1, 0}, {0.2, 0}, {0.3, 1}}}
	require.NoError(t, WriteCriteo(dir, samples, sizes))
	d, err := CriteoReader.Open(dir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Contains(t, dataset.Form(d), "Criteo")
	require.Len(t, d.Schema(), 28)
	assert.Equal(t, "dense float32[-1 13]", d.Schema()[0].String())
	assert.Equal(t, "sparse_20 int32[-1 100]", d.Schema()[21].String())
	assert.Equal(t, "labels int32[-1 1]", d.Schema()[27].String())
	sh, err := d.Shapes(2)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 13}, sh[0])
	all := readAll(t, d)
	lay, _ := d.Schema().Layout(sh)
	s2 := all[2]
	assert.Equal(t, float32(0.1), math.Float32frombits(binary.LittleEndian.Uint32(s2[lay[0].Offset:]))) //nolint:testifylint // exact: the value written
	lab := s2[lay[27].Offset:]
	assert.Equal(t, []uint32{0, 0, 1}, []uint32{binary.LittleEndian.Uint32(lab), binary.LittleEndian.Uint32(lab[4:]), binary.LittleEndian.Uint32(lab[8:])})
	// Sparse ids of row 3 (sample 2's first) of feature 0, as written.
	sp := s2[lay[1].Offset:]
	assert.Equal(t, uint32((3*3)*7919%40000000), binary.LittleEndian.Uint32(sp))

	// A trace beyond the data names the sample.
	require.NoError(t, os.WriteFile(filepath.Join(dir, CriteoTrace), []byte("0, 2, 2\n2, 9, 7\n"), 0o644))
	_, err = CriteoReader.Open(dir, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrMismatch)
	assert.ErrorContains(t, err, "trace's sample 1 ends at row 9")
	require.NoError(t, os.WriteFile(filepath.Join(dir, CriteoTrace), []byte("0, 2, 3\n"), 0o644))
	_, err = CriteoReader.Open(dir, dataset.Options{})
	assert.ErrorContains(t, err, CriteoTrace+":1")
	require.NoError(t, os.Remove(filepath.Join(dir, CriteoTrace)))
	_, err = CriteoReader.Open(dir, dataset.Options{})
	assert.ErrorContains(t, err, "aggregation trace")
}

func TestPrompts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := filepath.Join(dir, "cnn_eval.json")
	require.NoError(t, WritePrompts(recs, [][]int32{{1, 2, 3}, {128000, 5}}, []string{"one", "two"}))
	cols := filepath.Join(dir, "cols.json")
	require.NoError(t, os.WriteFile(cols, []byte(`{"tok_input": {"1": [128000, 5], "0": [1, 2, 3]}, "output": {"0": "one", "1": "two"}}`), 0o644))
	for _, p := range []string{recs, cols} {
		d, err := PromptsReader.Open(p, dataset.Options{})
		require.NoError(t, err, p)
		assert.Equal(t, "input_ids int32[-1]", d.Schema().String())
		all := readAll(t, d)
		assert.Equal(t, []byte{0, 0xf4, 1, 0, 5, 0, 0, 0}, all[1])
		pr, err := ReadPrompts(p)
		require.NoError(t, err)
		assert.Equal(t, []string{"one", "two"}, pr.Targets)
	}
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`[{"tok_input": [1]}, {"tok_input": "x"}]`), 0o644))
	_, err := PromptsReader.Open(bad, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, "sample 1")
}

func TestSQuAD(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	qs := []SQuADQuestion{
		{ID: "a", Context: "The river flows to Paris.", Question: "Where does the river flow?", Answer: "Paris"},
		{ID: "b", Context: "Smith was born in 1895.", Question: "When was Smith born?", Answer: "1895"},
	}
	require.NoError(t, WriteSQuAD(dir, qs, 100))
	d, err := SQuADReader.Open(dir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Contains(t, dataset.Form(d), "SQuAD v1.1")
	assert.Equal(t, filepath.Join(dir, SQuADDevSet), dataset.Truth(d))
	assert.Equal(t, filepath.Join(dir, SQuADVocab), dataset.Vocab(d))
	assert.Equal(t, "input_ids int32[384], input_mask int32[384], segment_ids int32[384]", d.Schema().String())
	require.Equal(t, 2, d.Len())
	all := readAll(t, d)
	at := func(b []byte, tensor, k int) uint32 { return binary.LittleEndian.Uint32(b[4*(384*tensor+k):]) }
	// [CLS] where does the river flow ? [SEP] the river flows to paris . [SEP]:
	// the answer at 12, the last token at 14.
	s := all[0]
	assert.Equal(t, uint32(2), at(s, 0, 0))
	assert.Equal(t, uint32(3), at(s, 0, 7))
	assert.Equal(t, uint32(100), at(s, 0, 12), "the answer's id is the first late one")
	assert.Equal(t, uint32(1), at(s, 1, 14))
	assert.Equal(t, uint32(0), at(s, 1, 15))
	assert.Equal(t, []uint32{0, 1, 1}, []uint32{at(s, 2, 7), at(s, 2, 8), at(s, 2, 14)})

	require.NoError(t, os.WriteFile(filepath.Join(dir, SQuADDevSet), []byte(`{"data": [`), 0o644))
	_, err = SQuADReader.Open(dir, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, SQuADDevSet)
}
