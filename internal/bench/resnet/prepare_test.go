package resnet

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/imaging"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// writePNG writes a w×h image whose pixels follow (x, y).
func writePNG(t *testing.T, path string, w, h int) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 5), uint8((x + y) * 3), 255})
		}
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// TestPrepareImageNet: raw images and their val_map.txt become the
// reference form package dataset opens, in either layout; a sample is
// PreprocessVGG of its image.
func TestPrepareImageNet(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writePNG(t, filepath.Join(src, "a.png"), 300, 260)
	require.NoError(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	writePNG(t, filepath.Join(src, "sub", "b.png"), 100, 180)
	require.NoError(t, os.WriteFile(filepath.Join(src, "val_map.txt"), []byte("a.png 7\nsub/b.png 3\n"), 0o644))
	for _, tt := range []struct {
		name  string
		nhwc  bool
		shape []int
	}{{"NCHW", false, []int{3, 224, 224}}, {"NHWC", true, []int{224, 224, 3}}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dst := t.TempDir()
			n, err := PrepareImageNet(context.Background(), src, dst, PrepareOptions{NHWC: tt.nhwc, Workers: 2})
			require.NoError(t, err)
			assert.Equal(t, 2, n)
			d, err := dataset.OpenNPYDir(dst, "")
			require.NoError(t, err)
			defer d.Close()
			assert.Equal(t, []int{7, 3}, d.Labels())
			spec, ok := d.Schema().Single()
			require.True(t, ok)
			assert.Equal(t, tt.shape, spec.Shape)
			assert.Equal(t, dataset.Float32, spec.DType)

			f, err := os.Open(filepath.Join(src, "sub", "b.png"))
			require.NoError(t, err)
			rgb, w, h, err := imaging.DecodeRGB(f)
			f.Close()
			require.NoError(t, err)
			want, _ := PreprocessVGG(rgb, w, h, tt.nhwc)
			got := make([]byte, spec.Bytes())
			require.NoError(t, d.ReadSample(1, got))
			assert.Equal(t, dataset.Float32Bytes(want), got)
		})
	}
}

// TestPreprocessVGG: the crop's corner pixel of a constant image is its
// value minus the channel's mean, in both layouts.
func TestPreprocessVGG(t *testing.T) {
	t.Parallel()
	rgb := bytes.Repeat([]byte{200, 100, 50}, 400*300)
	// float32 subtraction, as numpy's on float32 arrays.
	r, g, b := float32(200), float32(100), float32(50)
	want := []float32{r - float32(123.68), g - float32(116.78), b - float32(103.94)}
	chw, spec := PreprocessVGG(rgb, 400, 300, false)
	assert.Equal(t, []int{3, 224, 224}, spec.Shape)
	assert.Equal(t, want, []float32{chw[0], chw[224*224], chw[2*224*224]})
	hwc, spec := PreprocessVGG(rgb, 400, 300, true)
	assert.Equal(t, []int{224, 224, 3}, spec.Shape)
	assert.Equal(t, want, hwc[:3])
}

func TestPrepareImageNetErrors(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writePNG(t, filepath.Join(src, "a.png"), 20, 20)
	require.NoError(t, os.WriteFile(filepath.Join(src, "bad.JPEG"), []byte("not a jpeg"), 0o644))
	tests := []struct{ name, valMap, want string }{
		{name: "missing image", valMap: "a.png 1\nmissing.JPEG 2\n", want: "missing.JPEG: no such file"},
		{name: "not an image", valMap: "bad.JPEG 2\n", want: "imagenet image " + filepath.Join(src, "bad.JPEG") + ": image: unknown format"},
		{name: "bad label map", valMap: "a.png one\n", want: `val_map.txt:1: label "one"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vm := filepath.Join(t.TempDir(), "val_map.txt")
			require.NoError(t, os.WriteFile(vm, []byte(tt.valMap), 0o644))
			_, err := PrepareImageNet(context.Background(), src, t.TempDir(), PrepareOptions{LabelMap: vm})
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := PrepareImageNet(context.Background(), t.TempDir(), t.TempDir(), PrepareOptions{})
	assert.ErrorContains(t, err, "imagenet label map")
}

// BenchmarkPrepareImage: one 500×375 4:2:0 JPEG (ImageNet's typical
// size) decoded and preprocessed into its NCHW sample.
func BenchmarkPrepareImage(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 500, 375))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7 % 251)
	}
	var buf bytes.Buffer
	require.NoError(b, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}))
	b.ReportAllocs()
	for b.Loop() {
		rgb, w, h, err := imaging.DecodeRGB(bytes.NewReader(buf.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		PreprocessVGG(rgb, w, h, false)
	}
}
