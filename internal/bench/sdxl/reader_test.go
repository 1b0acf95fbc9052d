package sdxl

import (
	"archive/zip"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	long, err := TorchArchive("latents", "LongStorage", []int{1, 4, 2, 2}, make([]byte, 8*16))
	require.NoError(t, err)
	short, err := TorchArchive("latents", "FloatStorage", []int{1, 4, 2, 2}, make([]byte, 4*15))
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{name: "not a zip", file: []byte("not a zip"), want: "not a torch.save archive"},
		{name: "int64", file: long, want: "a LongStorage tensor"},
		{name: "short storage", file: short, want: "60 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := ReadLatentsPT(write(tc.name+".pt", tc.file))
			require.ErrorIs(t, err, dataset.ErrCorrupt)
			assert.ErrorContains(t, err, tc.name+".pt: ")
			assert.ErrorContains(t, err, tc.want)
		})
	}
	// A 3-D tensor is not latents.
	d := filepath.Join(dir, "three")
	require.NoError(t, WriteCOCO(d, GenerateCaptions(1, fixtureWords), make([]float32, 16), 16, false))
	three, err := TorchArchive("latents", "FloatStorage", []int{4, 2, 2}, make([]byte, 64))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(d, LatentsPT), three, 0o644))
	_, err = OpenCOCO(d)
	require.ErrorContains(t, err, "latents.pt: corrupt data set file: latents of shape [4 2 2], want [1, channels, height/8, width/8]")
}

// TestHalfLatents: float16 and bfloat16 storages are converted exactly.
func TestHalfLatents(t *testing.T) {
	t.Parallel()
	half := []byte{0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x7c} // 1, -2, 2^-24, +Inf
	bf := []byte{0x80, 0x3f, 0x00, 0xc0, 0x00, 0x00, 0x49, 0x40}   // 1, -2, 0, 3.140625
	for _, tc := range []struct {
		class string
		data  []byte
		want  []float32
	}{
		{class: "HalfStorage", data: half, want: []float32{1, -2, 1.0 / (1 << 24), float32(math.Inf(1))}},
		{class: "BFloat16Storage", data: bf, want: []float32{1, -2, 0, 3.140625}},
	} {
		pt, err := TorchArchive("latents", tc.class, []int{1, 1, 2, 2}, tc.data)
		require.NoError(t, err)
		z, err := zip.NewReader(bytes.NewReader(pt), int64(len(pt)))
		require.NoError(t, err)
		l, err := loadLatentsPT(z)
		require.NoError(t, err, tc.class)
		assert.Equal(t, tc.want, l.values, tc.class)
	}
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

// FuzzLatentsPT: any archive reads or fails with an error, never a
// panic; what reads has as many values as its shape.
func FuzzLatentsPT(f *testing.F) {
	pt, err := TorchArchive("latents", "FloatStorage", []int{1, 4, 1, 1}, make([]byte, 16))
	require.NoError(f, err)
	f.Add(pt)
	f.Fuzz(func(t *testing.T, data []byte) {
		z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		l, err := loadLatentsPT(z)
		if err == nil {
			n := 1
			for _, d := range l.shape {
				n *= d
			}
			require.Len(t, l.values, n)
		}
	})
}
