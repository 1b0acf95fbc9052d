package main

import (
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// TestDatasetPrepareImageNet: raw JPEGs with their val_map.txt become
// ResNet-50's reference form, which `dataset info` then reads.
func TestDatasetPrepareImageNet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "raw")
	require.NoError(t, os.MkdirAll(src, 0o755))
	for i, size := range []image.Point{{500, 375}, {200, 300}} {
		img := image.NewRGBA(image.Rectangle{Max: size})
		for y := range size.Y {
			for x := range size.X {
				img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(i * 90), 255})
			}
		}
		f, err := os.Create(filepath.Join(src, []string{"ILSVRC2012_val_00000001.JPEG", "ILSVRC2012_val_00000002.JPEG"}[i]))
		require.NoError(t, err)
		require.NoError(t, jpeg.Encode(f, img, &jpeg.Options{Quality: 90}))
		require.NoError(t, f.Close())
	}
	require.NoError(t, os.WriteFile(filepath.Join(src, "val_map.txt"),
		[]byte("ILSVRC2012_val_00000001.JPEG 65\nILSVRC2012_val_00000002.JPEG 970\n"), 0o644))

	r := mlperfHost(t, dir, "dataset", "prepare", "imagenet", "--layout", "NHWC", "raw", "prepared")
	require.Equal(t, exitcode.OK, r.code, "stderr:\n%s", r.stderr)
	assert.Contains(t, r.stdout, "wrote prepared: 2 images in ResNet-50's reference form (NHWC)")
	assert.FileExists(t, filepath.Join(dir, "prepared", "ILSVRC2012_val_00000002.JPEG.npy"))

	r = mlperfHost(t, dir, "dataset", "info", "prepared")
	require.Equal(t, exitcode.OK, r.code, "stderr:\n%s", r.stderr)
	assert.Contains(t, r.stdout, "samples  2")
	assert.Contains(t, r.stdout, "float32[224 224 3]")

	for _, args := range [][]string{{"coco", "raw", "out"}, {"imagenet", "raw"}, {"--layout", "CHW", "imagenet", "raw", "out"}} {
		r = mlperfHost(t, dir, append([]string{"dataset", "prepare"}, args...)...)
		assert.Equal(t, exitcode.Usage, r.code, "%v: %s", args, r.stderr)
	}
	r = mlperfHost(t, dir, "dataset", "prepare", "imagenet", "absent", "out")
	assert.Equal(t, exitcode.Dataset, r.code)
	assert.Contains(t, r.stderr, "imagenet label map: open absent/val_map.txt")
}
