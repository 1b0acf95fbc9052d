package imaging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResizeAreaOpenCV: testdata/resize_area.json holds small images and
// what OpenCV's cv2.resize with INTER_AREA makes of them
// (tools/prepareref/resize_fixture.py): a generic shrink, 2×2 and 3×3
// integral shrinks with rounding ties, growth on both axes and on one.
func TestResizeAreaOpenCV(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "resize_area.json"))
	require.NoError(t, err)
	var fx struct {
		Cases []struct {
			SW, SH, DW, DH int
			Src, Dst       []uint8
		}
	}
	require.NoError(t, json.Unmarshal(b, &fx))
	require.NotEmpty(t, fx.Cases)
	for _, c := range fx.Cases {
		t.Run(fmt.Sprintf("%dx%d to %dx%d", c.SW, c.SH, c.DW, c.DH), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, c.Dst, ResizeArea(c.Src, c.SW, c.SH, 3, c.DW, c.DH))
		})
	}
}

// TestResizeAreaWeights: a 3-pixel row shrunk to 2, worked by hand: each
// output covers 1.5 pixels, 1 of the nearer and 0.5 of the middle one.
func TestResizeAreaWeights(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []uint8{30, 150}, ResizeArea([]uint8{0, 90, 180}, 3, 1, 1, 2, 1))
	// 2×2 integral: (1+2+3+4+2)>>2 = 3, a tie at 2.5 rounded up as
	// OpenCV's SSE2 loop does.
	assert.Equal(t, []uint8{3}, ResizeArea([]uint8{1, 2, 3, 4}, 2, 2, 1, 1, 1))
}

// FuzzDecodeRGB: any bytes decode to whole RGB pixels or an error.
func FuzzDecodeRGB(f *testing.F) {
	var buf bytes.Buffer
	img := image.NewYCbCr(image.Rect(0, 0, 5, 3), image.YCbCrSubsampleRatio420)
	require.NoError(f, jpeg.Encode(&buf, img, nil)) // 4:2:0 chroma
	f.Add(buf.Bytes())
	f.Add([]byte("\xff\xd8\xff\xe0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(b)); err != nil || cfg.Width*cfg.Height > 1<<20 {
			return
		}
		rgb, w, h, err := DecodeRGB(bytes.NewReader(b))
		if err == nil {
			assert.Len(t, rgb, w*h*3)
		}
	})
}
