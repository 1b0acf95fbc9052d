package sdxl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeCommitted writes the fixture tools/accuracyref/verify.sh runs the
// official code on, into dir: a data set of nine captions (coco/), the
// accuracy log of nine 8×8 images (mlperf_log_accuracy.json) and a
// features directory (features/: features_a's statistics as the
// reference, features_b as the images' Inception features, CLIP
// embeddings of cosines 1 and 0.6).
func writeCommitted(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, WriteCOCO(filepath.Join(dir, "coco"), GenerateCaptions(9, fixtureWords), GenerateLatents(5, 4), 8, false))
	log, err := os.ReadFile(filepath.Join("testdata", "mlperf_log_accuracy.json"))
	if *update || err != nil {
		b := nineImages(t)
		log = make([]byte, b.Len())
		_, err = b.Read(log)
		require.NoError(t, err)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mlperf_log_accuracy.json"), log, 0o644))
	ref, err := NewStatistics(readFeatures(t, "features_a.npy"))
	require.NoError(t, err)
	var img, txt [][]float32
	for i := range 9 {
		img = append(img, []float32{3, 4, 0})
		if i%3 == 0 {
			txt = append(txt, []float32{0.6, 0.8, 0})
		} else {
			txt = append(txt, []float32{4, 3, 0})
		}
	}
	require.NoError(t, WriteFeatures(filepath.Join(dir, "features"), ref, readFeatures(t, "features_b.npy"), img, txt))
}

// TestCommittedFixture: testdata's fixture is what the code writes
// (-update rewrites it), and it scores the line tools/accuracyref/verify.sh
// compares with the official FID function's.
func TestCommittedFixture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeCommitted(t, dir)
	for _, name := range []string{"coco/captions/captions.tsv", "coco/latents/latents.pt", "mlperf_log_accuracy.json",
		"features/val2014.npz", "features/inception.npy", "features/clip_image.npy", "features/clip_text.npy"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		path := filepath.Join("testdata", name)
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, got, 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%s: -update rewrites it", name)
	}
	c, err := OpenCOCO(filepath.Join("testdata", "coco"))
	require.NoError(t, err)
	assert.Len(t, c.Captions, 9)
	f, err := os.Open(filepath.Join("testdata", "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer f.Close()
	r, err := ScoreLog(f, filepath.Join("testdata", "features"))
	require.NoError(t, err)
	assert.InDelta(t, 6.8391241250078085, r.FID, 1e-9)
	// Three cosines of 1 and six of 24/25 (float32 rounding aside).
	assert.InDelta(t, (3*100+6*96)/9.0, r.CLIP, 1e-4)
}
