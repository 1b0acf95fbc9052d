package imaging

import "math"

// ResizeLinear resizes an 8-bit image of cn interleaved channels from
// sw×sh to dw×dh as OpenCV's cv2.resize with INTER_LINEAR does on x86:
// each output pixel's centre mapped back, (d+0.5)·scale-0.5, onto the
// two nearest source pixels of each axis (clamped at the edges), their
// weights in 11-bit fixed point, the horizontal pass into integers and
// the vertical one rounded as OpenCV's; a shrink by exactly 2 on both
// axes is INTER_AREA's 2×2 mean, as OpenCV switches to it.
func ResizeLinear(src []uint8, sw, sh, cn, dw, dh int) []uint8 {
	invX, invY := float64(dw)/float64(sw), float64(dh)/float64(sh)
	scaleX, scaleY := 1/invX, 1/invY
	if math.Abs(scaleX-2) < epsilon64 && math.Abs(scaleY-2) < epsilon64 {
		return shrinkIntegral(src, sw, cn, dw, dh, 2, 2)
	}
	xo, xw := bilinearTaps(sw, dw, scaleX)
	yo, yw := bilinearTaps(sh, dh, scaleY)
	return resizeLinearTaps(src, sw, sh, cn, dw, dh, xo, xw, yo, yw)
}

// bilinearTaps is OpenCV's INTER_LINEAR coefficients for one axis: per
// output pixel the first source pixel and its two 11-bit weights; past
// either edge the edge pixel alone.
func bilinearTaps(ssize, dsize int, scale float64) (ofs []int, w [][2]int32) {
	ofs, w = make([]int, dsize), make([][2]int32, dsize)
	for d := range dsize {
		f := float32((float64(d)+0.5)*scale - 0.5)
		s := int(math.Floor(float64(f)))
		f -= float32(s)
		if s < 0 {
			f, s = 0, 0
		}
		if s >= ssize-1 {
			f, s = 0, ssize-1
		}
		ofs[d] = s
		w[d] = [2]int32{saturate16(math.RoundToEven(float64((1 - f) * (1 << resizeCoefBits)))),
			saturate16(math.RoundToEven(float64(f * (1 << resizeCoefBits))))}
	}
	return ofs, w
}
