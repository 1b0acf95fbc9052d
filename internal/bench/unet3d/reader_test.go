package unet3d

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

func TestKiTS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := func(name string, d, h, w int) FixtureCase {
		n := d * h * w
		c := FixtureCase{Name: name, D: d, H: h, W: w, Truth: make([]byte, n), Predicted: make([]byte, n)}
		for v := range n {
			c.Truth[v], c.Predicted[v] = byte(v%3), byte((v/2)%3)
		}
		return c
	}
	require.NoError(t, WriteKiTS(dir, []FixtureCase{mk("case_00000", 2, 3, 4), mk("case_00003", 40, 10, 12)}))
	d, err := Reader.Open(dir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Contains(t, dataset.Form(d), "KiTS19")
	assert.Equal(t, "image float32[1 -1 -1 -1]", d.Schema().String())
	assert.Equal(t, 2, d.Len())
	sh, err := d.Shapes(1)
	require.NoError(t, err)
	assert.Equal(t, [][]int{{1, 40, 10, 12}}, sh)
	all := datasettest.ReadAll(t, d)
	require.Len(t, all[1], 4*4800)
	for v := range 4800 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(all[1][4*v:]))
		require.InDelta(t, float64((v/2)%3), x, 0.41, "voxel %d", v)
	}

	// A missing case names itself and its sample.
	require.NoError(t, os.Remove(filepath.Join(dir, "case_00003.pkl")))
	_, err = Reader.Open(dir, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrNotFound)
	assert.ErrorContains(t, err, "sample 1 (case_00003): case_00003.pkl")
	// A truncated pickle is corrupt.
	b, err := os.ReadFile(filepath.Join(dir, "case_00000.pkl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "case_00003.pkl"), b[:len(b)/2], 0o644))
	_, err = Reader.Open(dir, dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, "sample 1 (case_00003)")
}
