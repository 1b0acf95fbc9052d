package yolo

import (
	"math"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/imaging"
)

// The model input: ultralytics' letterbox to Size×Size, the border
// filled with PadLevel.
const (
	Size     = 640
	PadLevel = 114
)

// Box is where an image lands in the letterboxed model input: resized to
// W×H, Left and Top pixels of border before it.
type Box struct {
	W, H, Left, Top int
	// Gain is the resize factor, min(640/height, 640/width).
	Gain float64
}

// LetterboxOf is ultralytics' LetterBox (center, no auto padding, scale
// up allowed) for an image of w×h: the gain, the resized size rounded
// half to even, the border split with Python's round(d - 0.1).
func LetterboxOf(w, h int) Box {
	r := math.Min(float64(Size)/float64(h), float64(Size)/float64(w))
	b := Box{Gain: r, W: int(math.RoundToEven(float64(w) * r)), H: int(math.RoundToEven(float64(h) * r))}
	dw, dh := float64(Size-b.W)/2, float64(Size-b.H)/2
	b.Left, b.Top = int(math.RoundToEven(dw-0.1)), int(math.RoundToEven(dh-0.1))
	return b
}

// Letterbox preprocesses an interleaved 8-bit RGB image of w×h as the
// reference's ultralytics predictor does: resized keeping its aspect
// (cv2.resize, INTER_LINEAR; not at all when the size is kept), centred
// on a 640×640 canvas of PadLevel, RGB planes (NCHW) scaled by 1/255
// into float32.
func Letterbox(rgb []uint8, w, h int) []float32 {
	b := LetterboxOf(w, h)
	if b.W != w || b.H != h {
		rgb = imaging.ResizeLinear(rgb, w, h, 3, b.W, b.H)
	}
	out := make([]float32, 3*Size*Size)
	pad := float32(PadLevel) / 255
	for i := range out {
		out[i] = pad
	}
	for y := range b.H {
		for x := range b.W {
			src := rgb[3*(y*b.W+x):]
			at := (b.Top+y)*Size + b.Left + x
			for c := range 3 {
				out[c*Size*Size+at] = float32(src[c]) / 255
			}
		}
	}
	return out
}
