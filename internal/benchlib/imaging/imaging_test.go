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

// TestResizeLinearByHand: a 2-pixel row grown to 4, worked by hand:
// output centres map back to -0.25 (the edge), 0.25, 0.75 and 1.25 (the
// edge), weights 1536/512 of 2048 between; a halving on both axes is
// INTER_AREA's 2×2 mean.
func TestResizeLinearByHand(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []uint8{0, 25, 75, 100}, ResizeLinear([]uint8{0, 100}, 2, 1, 1, 4, 1))
	assert.Equal(t, []uint8{3}, ResizeLinear([]uint8{1, 2, 3, 4}, 2, 2, 1, 1, 1))
	// Shrinking 4 to 3 (not by 2): centres at 1/6, 3/2 and 17/6
	// (200·1/6 + 255·5/6 = 245.8).
	assert.Equal(t, []uint8{17, 150, 246}, ResizeLinear([]uint8{0, 100, 200, 255}, 4, 1, 1, 3, 1))
}

// TestResizeLinearFlat: a flat image stays flat at any size, through the
// vectorised rows (past 16 bytes) and the scalar tail alike.
func TestResizeLinearFlat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		sw, sh, dw, dh int
	}{
		{name: "grow", sw: 7, sh: 5, dw: 23, dh: 11},
		{name: "shrink", sw: 40, sh: 30, dw: 17, dh: 13},
		{name: "one axis", sw: 9, sh: 9, dw: 30, dh: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := bytes.Repeat([]uint8{114, 7, 255}, tt.sw*tt.sh)
			assert.Equal(t, bytes.Repeat([]uint8{114, 7, 255}, tt.dw*tt.dh), ResizeLinear(src, tt.sw, tt.sh, 3, tt.dw, tt.dh))
		})
	}
}
