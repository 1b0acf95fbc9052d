package bert

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/dataset/datasettest"
)

func TestSQuAD(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	qs := []SQuADQuestion{
		{ID: "a", Context: "The river flows to Paris.", Question: "Where does the river flow?", Answer: "Paris"},
		{ID: "b", Context: "Smith was born in 1895.", Question: "When was Smith born?", Answer: "1895"},
	}
	require.NoError(t, WriteSQuAD(dir, qs, 100))
	d, err := Reader.Open(dir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Contains(t, dataset.Form(d), "SQuAD v1.1")
	assert.Equal(t, filepath.Join(dir, SQuADDevSet), dataset.Truth(d))
	assert.Equal(t, filepath.Join(dir, SQuADVocab), dataset.Vocab(d))
	assert.Equal(t, "input_ids int32[384], input_mask int32[384], segment_ids int32[384]", d.Schema().String())
	require.Equal(t, 2, d.Len())
	all := datasettest.ReadAll(t, d)
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
	_, err = Reader.Open(dir, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, SQuADDevSet)
}
