package yolo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDetectionSet: each image's detections sit in slot rows below the
// letterbox's border, of distinct classes among the set's categories,
// and its ground truth is their boxes, inside the image.
func TestDetectionSet(t *testing.T) {
	t.Parallel()
	images := DetectionSet(1525)
	require.Len(t, images, 1525)
	cats := DetectionSetCategories()
	require.Len(t, cats, Slots-3) // 640×384: 128 rows of border, the first three slots' rows
	top := LetterboxOf(Size, DetectionSetSide).Top
	seen := map[int]bool{}
	ids := map[int]bool{}
	for i, im := range images {
		assert.False(t, ids[im.ID], "image %d: id %d twice", i, im.ID)
		ids[im.ID] = true
		assert.Equal(t, []int{Size, DetectionSetSide}, []int{im.Width, im.Height})
		assert.Len(t, im.Detections, 1+i%2, "image %d", i)
		require.Len(t, im.Truth, len(im.Detections))
		classes := map[int]bool{}
		for k, d := range im.Detections {
			assert.GreaterOrEqual(t, (1+d.Class)*Cell, top, "image %d: slot %d's row is in the border", i, d.Class)
			assert.Less(t, d.Class, Slots)
			assert.False(t, classes[d.Class], "image %d: class %d twice", i, d.Class)
			classes[d.Class] = true
			assert.NotZero(t, d.Score)
			b := im.Truth[k]
			assert.Equal(t, TruthOf(d, im.Width, im.Height), b)
			assert.Contains(t, cats, b.Category)
			seen[b.Category] = true
			assert.True(t, b.X >= 0 && b.Y >= 0 && b.X+b.W <= float64(im.Width) && b.Y+b.H <= float64(im.Height),
				"image %d: box %v outside the image", i, b)
		}
	}
	assert.Len(t, seen, len(cats), "every category has ground truth")
}
