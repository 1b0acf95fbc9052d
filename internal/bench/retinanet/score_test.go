package retinanet

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
)

func openAnnotations(t *testing.T) *Annotations {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "openimages", "annotations", "openimages-mlperf.json"))
	require.NoError(t, err)
	defer f.Close()
	ann, err := ReadAnnotations(f)
	require.NoError(t, err)
	return ann
}

// The fixture testdata/openimages is written by
// tools/accuracyref/make_fixtures.py (7 images, 3 categories in unsorted
// file order, a crowd region, an image without detections, one not
// logged, a duplicate). The expected lines are what the official
// accuracy-openimages.py prints on it, run by tools/accuracyref/verify.sh
// with the COCOeval stand-in tools/accuracyref/shims/pycocotools.
func TestOpenImagesMAPFixture(t *testing.T) {
	t.Parallel()
	ann := openAnnotations(t)
	tests := []struct {
		name, log string
		inv       bool
		want      string
		noResults int
	}{
		{name: "category ids", log: "mlperf_log_accuracy.json", want: "mAP=22.413%", noResults: 1},
		// Here image 0 drew no detection either.
		{name: "inverse map", log: "inv_map_log.json", inv: true, want: "mAP=10.572%", noResults: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join("testdata", "openimages", tt.log))
			require.NoError(t, err)
			defer f.Close()
			res, err := OpenImagesMAP(f, ann, tt.inv)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Text())
			assert.Equal(t, 6, res.Images)
			assert.Equal(t, tt.noResults, res.NoResults)
		})
	}
}

func TestOpenImagesMAPErrors(t *testing.T) {
	t.Parallel()
	ann := openAnnotations(t)
	tests := []struct {
		name    string
		entries []accuracy.Entry
		inv     bool
		err     string
	}{
		{name: "no image", entries: []accuracy.Entry{{QSLIdx: 7, Data: nil}}, err: "qsl_idx 7 has no image"},
		{name: "partial row", entries: []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(0, 0, 0, 1, 1, 0.5, 1, 0)}}, err: "rows of 7 float32"},
		{name: "image_idx disagrees", entries: []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(3, 0, 0, 1, 1, 0.5, 1)}}, err: "image_idx is 3"},
		{name: "label outside inverse map", entries: []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(0, 0, 0, 1, 1, 0.5, 4)}}, inv: true, err: "label 4 outside the 3 categories"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := OpenImagesMAP(accuracytest.Log(t, tt.entries), ann, tt.inv)
			require.ErrorIs(t, err, accuracy.ErrLog)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}
