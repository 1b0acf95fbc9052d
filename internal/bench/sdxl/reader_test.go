package sdxl

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/torchpt"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

var fixtureWords = []string{
	"A red bicycle leaning on a blue wall.",
	`A board that says "fresh bread" beside a bakery door.`,
	"Three kites over a sandy beach.",
}

// TestReadCOCO: the fixture reads back in both latents forms, each
// sample its caption's bytes then the latents, the torch archive first
// when both are there.
func TestReadCOCO(t *testing.T) {
	t.Parallel()
	for _, npy := range []bool{false, true} {
		dir := t.TempDir()
		caps := GenerateCaptions(3, fixtureWords)
		lat := GenerateLatents(1, 4*2*2)
		require.NoError(t, WriteCOCO(dir, caps, lat, 16, npy))
		require.True(t, Reader.Is(dir, dataset.Options{}))
		d, err := Reader.Open(dir, dataset.Options{})
		require.NoError(t, err)
		c, ok := d.(*COCO)
		require.True(t, ok)
		assert.Equal(t, caps, c.Captions)
		assert.Equal(t, lat, c.Latents)
		assert.Equal(t, []int{1, 4, 2, 2}, c.LatentsShape)
		h, w := c.ImageSize()
		assert.Equal(t, []int{16, 16}, []int{h, w})
		assert.Equal(t, filepath.Join(dir, CaptionsFile), dataset.Truth(d))
		assert.Contains(t, dataset.Form(d), "3 captions")
		shapes, err := d.Shapes(1)
		require.NoError(t, err)
		assert.Equal(t, [][]int{{len(fixtureWords[1])}, {4, 2, 2}}, shapes)
		buf := make([]byte, d.Schema().SampleBytes(shapes))
		require.NoError(t, d.ReadSample(1, buf))
		assert.Equal(t, fixtureWords[1], string(buf[:len(fixtureWords[1])]))
		assert.Equal(t, dataset.Float32Bytes(lat), buf[len(fixtureWords[1]):])
		require.Error(t, d.ReadSample(1, buf[1:]))
		_, err = d.Shapes(3)
		require.Error(t, err)
	}
}

// TestReadCOCOErrors: each malformed file is an error naming the file
// and the row.
func TestReadCOCOErrors(t *testing.T) {
	t.Parallel()
	const head = "id\timage_id\tcaption\theight\twidth\tfile_name\tcoco_url\n"
	for _, tc := range []struct {
		name, tsv, want string
	}{
		{name: "no caption column", tsv: "id\timage_id\n1\t2\n", want: `captions.tsv: corrupt data set file: header "id\timage_id" has no column "caption"`},
		{name: "short row", tsv: head + "1\t2\ta cat\t480\t640\tx.jpg\n", want: "captions.tsv: corrupt data set file: row 1: 6 fields, the header has 7"},
		{name: "not an integer", tsv: head + "1\t2\ta cat\t480\t640\tx.jpg\tu\n3\tx\ta dog\t480\t640\ty.jpg\tv\n", want: `row 2: image_id "x" is not an integer`},
		{name: "empty caption", tsv: head + "1\t2\t\t480\t640\tx.jpg\tu\n", want: "row 1: empty caption"},
		{name: "no rows", tsv: head, want: "no captions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseCaptions([]byte(tc.tsv), "captions.tsv")
			require.ErrorIs(t, err, dataset.ErrCorrupt)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestReadLatentsErrors: latents that are not one contiguous float
// tensor are errors naming the file.
func TestReadLatentsErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	archive := func(class string, shape []int, data []byte) []byte {
		var b bytes.Buffer
		require.NoError(t, torchpt.WriteStorage(&b, "latents", class, shape, data))
		return b.Bytes()
	}
	long := archive("LongStorage", []int{1, 4, 2, 2}, make([]byte, 8*16))
	short := archive("FloatStorage", []int{1, 4, 2, 2}, make([]byte, 4*15))
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{name: "not a zip", file: []byte("not a zip"), want: "not a torch.save archive"},
		{name: "int64", file: long, want: "a LongStorage tensor"},
		{name: "short storage", file: short, want: "entry latents/data/0: 60 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := ReadLatentsPT(write(tc.name+".pt", tc.file))
			require.ErrorIs(t, err, dataset.ErrCorrupt)
			assert.ErrorContains(t, err, tc.name+".pt: ")
			assert.ErrorContains(t, err, tc.want)
		})
	}
	// A missing file is os's error, not a corrupt one.
	_, _, err := ReadLatentsPT(filepath.Join(dir, "none.pt"))
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.NotErrorIs(t, err, dataset.ErrCorrupt)
	// A 3-D tensor is not latents.
	d := filepath.Join(dir, "three")
	require.NoError(t, WriteCOCO(d, GenerateCaptions(1, fixtureWords), make([]float32, 16), 16, false))
	require.NoError(t, os.WriteFile(filepath.Join(d, LatentsPT), archive("FloatStorage", []int{4, 2, 2}, make([]byte, 64)), 0o644))
	_, err = OpenCOCO(d)
	require.ErrorContains(t, err, "latents.pt: corrupt data set file: latents of shape [4 2 2], want [1, channels, height/8, width/8]")
}

// FuzzParseCaptions: any bytes parse or fail with an error, never a
// panic; what parses has a caption per row.
func FuzzParseCaptions(f *testing.F) {
	f.Add([]byte("id\timage_id\tcaption\theight\twidth\tfile_name\tcoco_url\n1\t2\t\"a \"\"b\"\"\"\t3\t4\tx\ty\n"))
	f.Add([]byte("id\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		caps, err := ParseCaptions(data, "captions.tsv")
		if err == nil {
			for _, c := range caps {
				require.NotEmpty(t, c.Caption)
			}
		}
	})
}
