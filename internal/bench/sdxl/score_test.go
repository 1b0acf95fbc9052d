package sdxl

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// nineImages is a log of nine 8×8 images, the first logged twice.
func nineImages(t *testing.T) *bytes.Reader {
	t.Helper()
	var es []accuracy.Entry
	for i := range 9 {
		es = append(es, accuracy.Entry{SeqID: uint64(i), QSLIdx: uint64(i), Data: pattern(byte(i))})
	}
	es = append(es, accuracy.Entry{SeqID: 9, QSLIdx: 0, Data: pattern(1)})
	return accuracytest.Log(t, es)
}

// TestScoreLog: with features_a's statistics as the reference and
// features_b as the nine images' features, the FID is the one scipy
// gives (TestFIDAgainstScipy); the CLIP embeddings make cosines of 1 and
// 0 alternately: 5 of 9 images at 100.
func TestScoreLog(t *testing.T) {
	t.Parallel()
	ref, err := NewStatistics(readFeatures(t, "features_a.npy"))
	require.NoError(t, err)
	var img, txt [][]float32
	for i := range 9 {
		img = append(img, []float32{1, 0, 0})
		if i%2 == 0 {
			txt = append(txt, []float32{2, 0, 0})
		} else {
			txt = append(txt, []float32{0, 0, 3})
		}
	}
	dir := t.TempDir()
	require.NoError(t, WriteFeatures(dir, ref, readFeatures(t, "features_b.npy"), img, txt))
	r, err := ScoreLog(nineImages(t), dir)
	require.NoError(t, err)
	assert.Equal(t, 9, r.Images)
	assert.InDelta(t, 6.8391241250078085, r.FID, 1e-9)
	assert.InDelta(t, 500.0/9, r.CLIP, 1e-9)
	r.FID, r.CLIP = 6.8391241250078085, 55.55555555555556
	assert.Equal(t, "Accuracy Results: {'FID_SCORE': '6.8391241250078085', 'CLIP_SCORE': '55.55555555555556'}", r.Text())
	v, ok := r.Value(MetricFID)
	assert.True(t, ok)
	assert.InDelta(t, 6.839, v, 1e-3)
	_, ok = r.Value("acc")
	assert.False(t, ok)

	// A features file of another row count is named.
	require.NoError(t, WriteFeatures(dir, ref, readFeatures(t, "features_a.npy"), img, txt))
	_, err = ScoreLog(nineImages(t), dir)
	require.ErrorIs(t, err, dataset.ErrMismatch)
	assert.ErrorContains(t, err, "inception.npy: dtype or shape mismatch: features of shape [12 5], want [9, D]")
	require.NoError(t, os.Remove(filepath.Join(dir, StatisticsFile)))
	_, err = ScoreLog(nineImages(t), dir)
	require.ErrorContains(t, err, "val2014.npz")
}

// TestScoreLogNeedsNetworks: without features the scorer checks the
// images and says what it needs; a response that is not an image is
// named.
func TestScoreLogNeedsNetworks(t *testing.T) {
	t.Parallel()
	_, err := Scorer.Score(nineImages(t), accuracy.Inputs{})
	require.ErrorIs(t, err, ErrNetworks)
	assert.ErrorContains(t, err, "9 images logged")
	bad := accuracytest.Log(t, []accuracy.Entry{{SeqID: 0, QSLIdx: 0, Data: pattern(0)}, {SeqID: 1, QSLIdx: 1, Data: make([]byte, 12)}})
	_, err = ScoreLog(bad, "")
	require.ErrorIs(t, err, accuracy.ErrLog)
	assert.ErrorContains(t, err, "entry seq_id 1 (qsl_idx 1)")
	_, err = ScoreLog(accuracytest.Log(t, nil), "")
	require.ErrorIs(t, err, accuracy.ErrLog)
}

// TestCommand: the official script's command, paths quoted for the
// shell where they need it.
func TestCommand(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `python3 "$INFERENCE_REPO"/text_to_image/tools/accuracy_coco.py --mlperf-accuracy-file out/mlperf_log_accuracy.json `+
		`--caption-path 'my data/captions/captions.tsv' --compliance-images-path out/images --output-file out/coco-results.json`,
		Command("out/mlperf_log_accuracy.json", "my data/captions/captions.tsv", "out/images", "", "out/coco-results.json"))
	assert.Contains(t, Command("l", "c", "i", "out/sample_ids.txt", "o"), " --compliance-images-path i --ids-path out/sample_ids.txt --output-file o")
}
