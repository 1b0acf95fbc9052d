package retinanet

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

func TestOpenImages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	images := []OpenImage{
		{FileName: "a.jpg", Width: 100, Height: 50, Detections: []Detection{{0.1, 0.2, 0.3, 0.4, 0.9, 3}}},
		{FileName: "sub/b.jpg", Width: 80, Height: 80},
	}
	require.NoError(t, WriteOpenImages(dir, images, []int{3, 5}, 2))
	d, err := Reader.Open(dir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Contains(t, dataset.Form(d), "OpenImages")
	assert.Equal(t, "images float32[3 800 800]", d.Schema().String())
	all := datasettest.ReadAll(t, d)
	f := func(b []byte, k int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])) }
	assert.InDelta(t, 80, f(all[0], 0), 1e-4)
	assert.InDelta(t, 0.9, f(all[0], 4), 1e-6)
	assert.Equal(t, float32(3), f(all[0], 5)) //nolint:testifylint // exact: the value written

	// The annotation file may live elsewhere (--label-map).
	ann := filepath.Join(t.TempDir(), "ann.json")
	require.NoError(t, os.Rename(filepath.Join(dir, OpenImagesAnnotations), ann))
	d2, err := Reader.Open(dir, dataset.Options{LabelMap: ann})
	require.NoError(t, err)
	d2.Close()
	require.NoError(t, os.Remove(filepath.Join(dir, "sub", "b.jpg.npy")))
	_, err = Reader.Open(dir, dataset.Options{LabelMap: ann})
	require.ErrorIs(t, err, dataset.ErrNotFound)
	assert.ErrorContains(t, err, `sample 1: not found: sub/b.jpg.npy (image "sub/b.jpg" of ann.json)`)
}
