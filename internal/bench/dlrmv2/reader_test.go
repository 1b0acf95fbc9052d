package dlrmv2

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/dataset/datasettest"
)

func TestCriteo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sizes := []int{3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1}
	samples := [][]CriteoRow{{{0.5, 1}, {0.25, 0}}, {{0.75, 1}}, {{0.1, 0}, {0.2, 0}, {0.3, 1}}}
	require.NoError(t, WriteCriteo(dir, samples, sizes))
	d, err := Reader.Open(dir, dataset.Options{})
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
	all := datasettest.ReadAll(t, d)
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
	_, err = Reader.Open(dir, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrMismatch)
	assert.ErrorContains(t, err, "trace's sample 1 ends at row 9")
	require.NoError(t, os.WriteFile(filepath.Join(dir, CriteoTrace), []byte("0, 2, 3\n"), 0o644))
	_, err = Reader.Open(dir, dataset.Options{})
	assert.ErrorContains(t, err, CriteoTrace+":1")
	require.NoError(t, os.Remove(filepath.Join(dir, CriteoTrace)))
	_, err = Reader.Open(dir, dataset.Options{})
	assert.ErrorContains(t, err, "aggregation trace")
}
