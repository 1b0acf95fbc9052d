package sdxl

import (
	"bytes"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// pattern is an 8×8 image whose pixel (x, y) is (32x, 32y, seed).
func pattern(seed byte) []byte {
	b := make([]byte, 0, 8*8*3)
	for y := range 8 {
		for x := range 8 {
			b = append(b, byte(32*x), byte(32*y), seed)
		}
	}
	return b
}

// imagesLog is an accuracy log of three 8×8 images, sample 1 twice (the
// script keeps the first).
func imagesLog(t *testing.T) *bytes.Reader {
	t.Helper()
	return accuracytest.Log(t, []accuracy.Entry{
		{SeqID: 0, QSLIdx: 2, Data: pattern(20)},
		{SeqID: 1, QSLIdx: 1, Data: pattern(10)},
		{SeqID: 2, QSLIdx: 0, Data: pattern(0)},
		{SeqID: 3, QSLIdx: 1, Data: pattern(99)},
	})
}

// TestWriteImages: the compliance images of the ids the log holds and
// captions.txt for every id, as accuracy_coco.py writes them; the PNG
// files are golden (testdata/images, rewritten with -update) and decode
// to the logged pixels. tools/accuracyref/verify.sh reads them with PIL
// as the script's Image.open would.
func TestWriteImages(t *testing.T) {
	t.Parallel()
	caps := GenerateCaptions(3, fixtureWords)
	dir := t.TempDir()
	n, err := WriteImages(dir, imagesLog(t), caps, []int{1, 2}, false, 8, 8)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	text, err := os.ReadFile(filepath.Join(dir, "captions.txt"))
	require.NoError(t, err)
	assert.Equal(t, "1  "+fixtureWords[1]+"\n2  "+fixtureWords[2]+"\n", string(text))
	assert.NoFileExists(t, filepath.Join(dir, "0.png"))
	golden := filepath.Join("testdata", "images")
	for _, name := range []string{"1.png", "2.png", "captions.txt"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		if *update {
			require.NoError(t, os.MkdirAll(golden, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(golden, name), got, 0o644))
		}
		want, err := os.ReadFile(filepath.Join(golden, name))
		require.NoError(t, err)
		assert.Equal(t, want, got, name)
	}
	for name, seed := range map[string]byte{"1.png": 10, "2.png": 20} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		m, err := png.Decode(f)
		f.Close()
		require.NoError(t, err)
		want := pattern(seed)
		for y := range 8 {
			for x := range 8 {
				r, g, b, a := m.At(x, y).RGBA()
				p := want[3*(8*y+x):]
				assert.Equal(t, []uint32{uint32(p[0]), uint32(p[1]), uint32(p[2]), 0xff}, []uint32{r >> 8, g >> 8, b >> 8, a >> 8})
			}
		}
	}
	// With all, every logged image.
	n, err = WriteImages(t.TempDir(), imagesLog(t), caps, nil, true, 8, 8)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
}

// TestImagesErrors: a response of the wrong size names its entry; an id
// beyond the captions is an error.
func TestImagesErrors(t *testing.T) {
	t.Parallel()
	log := accuracytest.Log(t, []accuracy.Entry{{SeqID: 4, QSLIdx: 7, Data: make([]byte, 5)}})
	err := ReadImages(log, 8, 8, func(Image) error { return nil })
	require.ErrorIs(t, err, accuracy.ErrLog)
	assert.ErrorContains(t, err, "entry seq_id 4 (qsl_idx 7): malformed accuracy log: 5 bytes, want a 8x8 RGB image (192)")
	_, err = WriteImages(t.TempDir(), imagesLog(t), GenerateCaptions(1, fixtureWords), []int{3}, false, 8, 8)
	require.ErrorContains(t, err, "compliance image 3: the captions file has 1 rows")
}

// TestComplianceIDs: a round's ids are its checker's, else the
// script's default; those of a data set of n captions are below n.
func TestComplianceIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		round string
		want  []int
		own   bool
	}{
		{round: "v5.1", want: []int{2747, 2235, 2165, 1515, 1538, 1367, 2419, 4629, 3657, 4532}, own: true},
		{round: "v6.0", want: []int{1311, 2476, 3644, 2188, 4114, 52, 388, 1195, 3427, 2289}, own: true},
		{round: "v6.1", want: ComplianceIDs}, // its checker requires none
	} {
		b, err := benchmarks.MustRound(tc.round).Lookup("stable-diffusion-xl")
		require.NoError(t, err)
		ids, own, err := ComplianceIDsOf(b)
		require.NoError(t, err)
		assert.Equal(t, tc.want, ids, tc.round)
		assert.Equal(t, tc.own, own, tc.round)
	}
	_, _, err := ComplianceIDsOf(benchmarks.Benchmark{Name: "x", AccuracyExtraFiles: map[string][]string{ImagesDir: {"a.png"}}})
	require.ErrorContains(t, err, `x's required image "a.png" is not a caption index`)
	assert.Equal(t, ComplianceIDs, Below(ComplianceIDs, 5000))
	assert.Equal(t, []int{1046, 1671, 1206}, Below(ComplianceIDs, 1700))
	assert.Empty(t, Below(ComplianceIDs, 10))
	assert.Equal(t, "52\n388\n", IDsText([]int{52, 388}))
}
