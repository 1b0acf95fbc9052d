package imaging

import "math"

// ResizeArea resizes an 8-bit image of cn interleaved channels from sw×sh
// to dw×dh as OpenCV's cv2.resize with INTER_AREA does on x86: shrinking
// on both axes, each output pixel is the area-weighted mean of the source
// pixels its cell covers, in float32, rounded half to even (OpenCV's
// resizeArea_), or for integral factors the block's integer mean
// (resizeAreaFast_); growing on either axis, OpenCV's bilinear resize
// with area coefficients in 11-bit fixed point.
func ResizeArea(src []uint8, sw, sh, cn, dw, dh int) []uint8 {
	// OpenCV's scale is 1/(dsize/ssize), not ssize/dsize: the same
	// rounding keeps the cells' edges where OpenCV puts them.
	invX, invY := float64(dw)/float64(sw), float64(dh)/float64(sh)
	scaleX, scaleY := 1/invX, 1/invY
	if scaleX >= 1 && scaleY >= 1 {
		ix, iy := math.Round(scaleX), math.Round(scaleY)
		if math.Abs(scaleX-ix) < epsilon64 && math.Abs(scaleY-iy) < epsilon64 {
			return shrinkIntegral(src, sw, cn, dw, dh, int(ix), int(iy))
		}
		return shrinkArea(src, sw, sh, cn, dw, dh, scaleX, scaleY)
	}
	return growAreaLinear(src, sw, sh, cn, dw, dh, scaleX, scaleY, invX, invY)
}

// epsilon64 is C's DBL_EPSILON, OpenCV's test for an integral factor.
const epsilon64 = 0x1p-52

// shrinkIntegral is OpenCV's resizeAreaFast_ for factors ix×iy: the sum
// of each block times the float32 1/(ix·iy), rounded half to even; for
// 2×2 OpenCV's SSE2 loop, (sum+2)>>2, which rounds ties up.
func shrinkIntegral(src []uint8, sw, cn, dw, dh, ix, iy int) []uint8 {
	dst := make([]uint8, dw*dh*cn)
	inv := 1 / float32(ix*iy)
	for dy := range dh {
		for dx := range dw {
			for k := range cn {
				sum := 0
				for y := dy * iy; y < (dy+1)*iy; y++ {
					for x := dx * ix; x < (dx+1)*ix; x++ {
						sum += int(src[(y*sw+x)*cn+k])
					}
				}
				i := (dy*dw+dx)*cn + k
				if ix == 2 && iy == 2 {
					dst[i] = uint8((sum + 2) >> 2)
					continue
				}
				dst[i] = saturate8(math.RoundToEven(float64(float32(sum) * inv)))
			}
		}
	}
	return dst
}

// areaTap is one source pixel's weight in one output pixel.
type areaTap struct {
	d, s  int
	alpha float32
}

// areaTaps is OpenCV's computeResizeAreaTab for one axis.
func areaTaps(ssize, dsize int, scale float64) []areaTap {
	var taps []areaTap
	for d := range dsize {
		fs1 := float64(d) * scale
		fs2 := fs1 + scale
		cell := math.Min(scale, float64(ssize)-fs1)
		s1, s2 := int(math.Ceil(fs1)), int(math.Floor(fs2))
		s2 = min(s2, ssize-1)
		s1 = min(s1, s2)
		if float64(s1)-fs1 > 1e-3 {
			taps = append(taps, areaTap{d, s1 - 1, float32((float64(s1) - fs1) / cell)})
		}
		for s := s1; s < s2; s++ {
			taps = append(taps, areaTap{d, s, float32(1 / cell)})
		}
		if fs2-float64(s2) > 1e-3 {
			taps = append(taps, areaTap{d, s2, float32(math.Min(math.Min(fs2-float64(s2), 1), cell) / cell)})
		}
	}
	return taps
}

// shrinkArea is OpenCV's resizeArea_<uchar, float>: per source row the
// horizontal weighted sums, accumulated per output row with the row's
// weight, every product and sum rounded to float32 as OpenCV's are.
func shrinkArea(src []uint8, sw, sh, cn, dw, dh int, scaleX, scaleY float64) []uint8 {
	xt, yt := areaTaps(sw, dw, scaleX), areaTaps(sh, dh, scaleY)
	dst := make([]uint8, dw*dh*cn)
	buf := make([]float32, dw*cn)
	sum := make([]float32, dw*cn)
	flush := func(dy int) {
		row := dst[dy*dw*cn:]
		for i, v := range sum {
			row[i] = saturate8(math.RoundToEven(float64(v)))
		}
	}
	prev := yt[0].d
	for _, y := range yt {
		clear(buf)
		row := src[y.s*sw*cn:]
		for _, x := range xt {
			for k := range cn {
				buf[x.d*cn+k] = buf[x.d*cn+k] + float32(float32(row[x.s*cn+k])*x.alpha)
			}
		}
		if y.d != prev {
			flush(prev)
			for i := range sum {
				sum[i] = float32(y.alpha * buf[i])
			}
			prev = y.d
			continue
		}
		for i := range sum {
			sum[i] = sum[i] + float32(y.alpha*buf[i])
		}
	}
	flush(prev)
	return dst
}

// resizeCoefBits is OpenCV's INTER_RESIZE_COEF_BITS; simdLanes the
// bytes of an SSE2 vector, which OpenCV's vertical pass takes at a time.
const (
	resizeCoefBits = 11
	simdLanes      = 16
)

// linearTaps is OpenCV's INTER_AREA coefficients for growing an axis:
// per output pixel the first source pixel and its 11-bit weights.
func linearTaps(ssize, dsize int, scale, inv float64) (ofs []int, w [][2]int32) {
	ofs, w = make([]int, dsize), make([][2]int32, dsize)
	for d := range dsize {
		s := int(math.Floor(float64(d) * scale))
		f := float32(float64(d+1) - float64(s+1)*inv)
		if f <= 0 {
			f = 0
		} else {
			f -= float32(math.Floor(float64(f)))
		}
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

// growAreaLinear is OpenCV's resize for INTER_AREA when an axis grows:
// its bilinear resize with area coefficients.
func growAreaLinear(src []uint8, sw, sh, cn, dw, dh int, scaleX, scaleY, invX, invY float64) []uint8 {
	xo, xw := linearTaps(sw, dw, scaleX, invX)
	yo, yw := linearTaps(sh, dh, scaleY, invY)
	return resizeLinearTaps(src, sw, sh, cn, dw, dh, xo, xw, yo, yw)
}

// resizeLinearTaps is OpenCV's fixed-point bilinear resize of 8-bit
// images (resizeGeneric_ with HResizeLinear and VResizeLinear) over
// per-axis taps: horizontal interpolation into int rows, then vertical
// as OpenCV's SSE2 path computes it (each row shifted right by 4,
// multiplied by its weight keeping the high 16 bits, summed, rounded by
// 2 bits).
func resizeLinearTaps(src []uint8, sw, sh, cn, dw, dh int, xo []int, xw [][2]int32, yo []int, yw [][2]int32) []uint8 {
	hrow := func(sy int) []int32 {
		r := make([]int32, dw*cn)
		row := src[sy*sw*cn:]
		for dx := range dw {
			s0 := xo[dx]
			s1 := min(s0+1, sw-1)
			for k := range cn {
				r[dx*cn+k] = int32(row[s0*cn+k])*xw[dx][0] + int32(row[s1*cn+k])*xw[dx][1]
			}
		}
		return r
	}
	dst := make([]uint8, dw*dh*cn)
	for dy := range dh {
		s0 := yo[dy]
		r0, r1 := hrow(s0), hrow(min(s0+1, sh-1))
		b0, b1 := yw[dy][0], yw[dy][1]
		out := dst[dy*dw*cn:]
		vec := len(r0) / simdLanes * simdLanes
		for i := range r0 {
			if i < vec {
				v := ((r0[i]>>4)*b0)>>16 + ((r1[i]>>4)*b1)>>16
				out[i] = saturate8(float64((v + 2) >> 2))
				continue
			}
			// The row's tail, past the last whole vector: OpenCV's scalar
			// rounding of the 22-bit product.
			out[i] = saturate8(float64((r0[i]*b0 + r1[i]*b1 + 1<<(2*resizeCoefBits-1)) >> (2 * resizeCoefBits)))
		}
	}
	return dst
}

func saturate8(v float64) uint8 {
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return uint8(v)
}

func saturate16(v float64) int32 {
	return int32(max(math.MinInt16, min(math.MaxInt16, v)))
}
