package yolo

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/cocoeval"
)

var update = flag.Bool("update", false, "rewrite testdata/coco")

// fixtureDir is the scorer's fixture: six images of COCO-like ids (two
// without annotations), three categories in unsorted file order, a crowd
// region, an image without detections, one not logged, a duplicate.
var fixtureDir = filepath.Join("testdata", "coco")

func fixtureFiles(t *testing.T) (ann, log, removedLog []byte) {
	t.Helper()
	type a struct {
		ID       int        `json:"id"`
		ImageID  int        `json:"image_id"`
		Category int        `json:"category_id"`
		BBox     [4]float64 `json:"bbox"`
		Area     float64    `json:"area"`
		Crowd    int        `json:"iscrowd"`
	}
	type im struct {
		ID       int    `json:"id"`
		FileName string `json:"file_name"`
		Height   int    `json:"height"`
		Width    int    `json:"width"`
		URL      string `json:"coco_url"`
	}
	ids := []int{776, 139, 1675, 285, 1296, 802}
	var doc struct {
		Images      []im `json:"images"`
		Annotations []a  `json:"annotations"`
		Categories  []struct {
			ID int `json:"id"`
		} `json:"categories"`
	}
	for _, id := range ids {
		doc.Images = append(doc.Images, im{ID: id, FileName: "img.jpg", Height: 200, Width: 400, URL: "http://images.cocodataset.org/val2017/img.jpg"})
	}
	box := func(id, img, cat int, x, y, w, h float64, crowd int) a {
		return a{ID: id, ImageID: img, Category: cat, BBox: [4]float64{x, y, w, h}, Area: w * h, Crowd: crowd}
	}
	doc.Annotations = []a{
		box(1, 776, 3, 40, 20, 120, 80, 0), box(2, 776, 1, 200, 100, 100, 50, 0),
		box(3, 1675, 1, 10, 10, 50, 50, 0), box(4, 1675, 1, 300, 20, 60, 120, 1),
		box(5, 1296, 2, 100, 60, 200, 100, 0), box(6, 802, 3, 0, 0, 400, 200, 0), box(7, 802, 1, 50, 50, 30, 30, 0),
	}
	for _, c := range []int{3, 1, 2} {
		doc.Categories = append(doc.Categories, struct {
			ID int `json:"id"`
		}{c})
	}
	ann, err := json.Marshal(doc)
	require.NoError(t, err)
	// Rows [qsl_idx, ymin, xmin, ymax, xmax, score, category].
	row := func(q int, ymin, xmin, ymax, xmax, s float32, c int) []float32 {
		return []float32{float32(q), ymin, xmin, ymax, xmax, s, float32(c)}
	}
	cat := func(rows ...[]float32) []byte {
		var v []float32
		for _, r := range rows {
			v = append(v, r...)
		}
		return accuracytest.F32(v...)
	}
	var b bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&b, []accuracy.Entry{
		{QSLIdx: 0, Data: cat(row(0, 0.1, 0.1, 0.5, 0.4, 0.9, 3), row(0, 0.5, 0.5, 0.75, 0.75, 0.8, 1), row(0, 0, 0, 0.2, 0.2, 0.3, 1))},
		{QSLIdx: 1, Data: nil},
		{QSLIdx: 2, Data: cat(row(2, 0.06, 0.03, 0.3, 0.15, 0.7, 1), row(2, 0.2, 0.8, 0.7, 0.9, 0.95, 1))},
		{QSLIdx: 4, Data: cat(row(4, 0.3, 0.25, 0.8, 0.75, 0.6, 2), row(4, 0.3, 0.25, 0.8, 0.7, 0.65, 3))},
		{QSLIdx: 5, Data: cat(row(5, 0, 0, 1, 1, 0.5, 3), row(5, 0.25, 0.125, 0.4, 0.2, 0.4, 1))},
		{QSLIdx: 0, Data: cat(row(0, 0, 0, 1, 1, 0.99, 1))},
	}))
	// The log of a data set without the empty images: qsl_idx 1 is 1296
	// (the image map is 776, 1296, 802, 1675).
	var r bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&r, []accuracy.Entry{
		{QSLIdx: 0, Data: cat(row(0, 0.1, 0.1, 0.5, 0.4, 0.9, 3))},
		{QSLIdx: 1, Data: cat(row(1, 0.3, 0.25, 0.8, 0.75, 0.6, 2))},
		{QSLIdx: 2, Data: cat(row(2, 0, 0, 1, 1, 0.5, 3), row(2, 0.25, 0.125, 0.4, 0.2, 0.4, 1))},
		{QSLIdx: 3},
	}))
	return ann, b.Bytes(), r.Bytes()
}

// TestCOCOFixtureFiles: testdata/coco is what fixtureFiles writes (go
// test -update rewrites it).
func TestCOCOFixtureFiles(t *testing.T) {
	t.Parallel()
	ann, log, removed := fixtureFiles(t)
	annPath, logPath := filepath.Join(fixtureDir, filepath.FromSlash(Annotations)), filepath.Join(fixtureDir, "mlperf_log_accuracy.json")
	removedPath := filepath.Join(fixtureDir, "removed_empty_log.json")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(annPath), 0o755))
		require.NoError(t, os.WriteFile(annPath, ann, 0o644))
		require.NoError(t, os.WriteFile(logPath, log, 0o644))
		require.NoError(t, os.WriteFile(removedPath, removed, 0o644))
	}
	for p, want := range map[string][]byte{annPath: ann, logPath: log, removedPath: removed} {
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s: rewrite it with go test -update", p)
	}
}

func openAnnotations(t *testing.T) *cocoeval.Annotations {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, filepath.FromSlash(Annotations)))
	require.NoError(t, err)
	defer f.Close()
	ann, err := cocoeval.ReadAnnotations(f)
	require.NoError(t, err)
	return ann
}

// TestCOCOMAPFixture: the lines are what the official accuracy-coco.py
// prints on the fixture, run by tools/accuracyref/verify.sh with the
// COCOeval stand-in tools/accuracyref/shims/pycocotools. With
// --remove-48-empty-images the image map is the four annotated images
// in CPython's set order (776, 1296, 802, 1675: slots 0, 1, 2 and 3 of
// a table of 8, 1296 probing on past 776's slot).
func TestCOCOMAPFixture(t *testing.T) {
	t.Parallel()
	ann := openAnnotations(t)
	tests := []struct {
		name, log   string
		removeEmpty bool
		want        string
		images      int
	}{
		{name: "every image", log: "mlperf_log_accuracy.json", want: "mAP=93.014%", images: 5},
		{name: "empty images removed", log: "removed_empty_log.json", removeEmpty: true, want: "mAP=77.888%", images: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join(fixtureDir, tt.log))
			require.NoError(t, err)
			defer f.Close()
			res, err := COCOMAP(f, ann, tt.removeEmpty)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Text())
			assert.Equal(t, tt.images, res.Images)
		})
	}
}

func TestEmptyImagesRemoved(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []int{0, 4, 5, 2}, EmptyImagesRemoved(openAnnotations(t)))
}

func TestCOCOMAPErrors(t *testing.T) {
	t.Parallel()
	ann := openAnnotations(t)
	tests := []struct {
		name        string
		entries     []accuracy.Entry
		removeEmpty bool
		err         string
	}{
		{name: "no image", entries: []accuracy.Entry{{QSLIdx: 6}}, err: "qsl_idx 6 has no image"},
		{name: "no image once empty ones are removed", entries: []accuracy.Entry{{QSLIdx: 4}}, removeEmpty: true, err: "qsl_idx 4 has no image"},
		{name: "partial row", entries: []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(0, 0, 0, 1, 1, 0.5, 1, 0)}}, err: "rows of 7 float32"},
		{name: "image_idx disagrees", entries: []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(3, 0, 0, 1, 1, 0.5, 1)}}, err: "image_idx is 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := COCOMAP(accuracytest.Log(t, tt.entries), ann, tt.removeEmpty)
			require.ErrorIs(t, err, accuracy.ErrLog)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}
