package imaging

import (
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // ImageNet's JPEGs
	_ "image/png"  // lossless images, to compare the resize alone
	"io"
)

// DecodeRGB decodes a JPEG (or PNG) into interleaved 8-bit RGB, as
// OpenCV's imread (libjpeg-turbo) and a BGR-to-RGB swap give it: YCbCr
// with 4:2:0 or 4:2:2 chroma is upsampled with libjpeg's "fancy"
// triangle filter and converted with libjpeg's fixed-point tables. The
// coefficients are Go's image/jpeg's, whose inverse DCT is not libjpeg's:
// a pixel may differ from libjpeg's by a level or two. Other chroma
// layouts, grayscale and CMYK images go through Go's color conversion.
func DecodeRGB(r io.Reader) (rgb []uint8, w, h int, err error) {
	img, _, err := image.Decode(r)
	if err != nil {
		return nil, 0, 0, err
	}
	b := img.Bounds()
	w, h = b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return nil, 0, 0, fmt.Errorf("image of %dx%d pixels", w, h)
	}
	if y, ok := img.(*image.YCbCr); ok {
		switch y.SubsampleRatio {
		case image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420:
			return ycbcrToRGB(y), w, h, nil
		}
	}
	rgb = make([]uint8, 0, w*h*3)
	for py := b.Min.Y; py < b.Max.Y; py++ {
		for px := b.Min.X; px < b.Max.X; px++ {
			c := color.RGBAModel.Convert(img.At(px, py)).(color.RGBA)
			rgb = append(rgb, c.R, c.G, c.B)
		}
	}
	return rgb, w, h, nil
}

// ycbcrToRGB upsamples the chroma planes as libjpeg's h2v1/h2v2 fancy
// upsampling and converts as its ycc_rgb_convert.
func ycbcrToRGB(y *image.YCbCr) []uint8 {
	b := y.Rect
	w, h := b.Dx(), b.Dy()
	hs, vs := 1, 1
	switch y.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hs = 2
	case image.YCbCrSubsampleRatio420:
		hs, vs = 2, 2
	}
	cw, ch := (w+hs-1)/hs, (h+vs-1)/vs
	plane := func(p []uint8) []uint8 {
		out := make([]uint8, cw*ch)
		for r := range ch {
			off := y.COffset(b.Min.X, b.Min.Y+r*vs)
			copy(out[r*cw:], p[off:off+cw])
		}
		return fancyUpsample(out, cw, ch, hs, vs, w, h)
	}
	cb, cr := plane(y.Cb), plane(y.Cr)
	rgb := make([]uint8, w*h*3)
	for r := range h {
		yrow := y.Y[y.YOffset(b.Min.X, b.Min.Y+r):]
		for c := range w {
			i := r*w + c
			yy, vb, vr := int32(yrow[c]), int32(cb[i])-128, int32(cr[i])-128
			rgb[3*i] = clamp8(yy + (jpegFix(1.40200)*vr+1<<15)>>16)
			rgb[3*i+1] = clamp8(yy + ((-jpegFix(0.34414)*vb + 1<<15 - jpegFix(0.71414)*vr) >> 16))
			rgb[3*i+2] = clamp8(yy + (jpegFix(1.77200)*vb+1<<15)>>16)
		}
	}
	return rgb
}

// jpegFix is libjpeg's FIX(x): x in 16-bit fixed point.
func jpegFix(x float64) int32 { return int32(x*(1<<16) + 0.5) }

func clamp8(v int32) uint8 { return uint8(max(0, min(255, v))) }

// fancyUpsample is libjpeg's h2v1_fancy_upsample (hs 2, vs 1) and
// h2v2_fancy_upsample (hs 2, vs 2): each output sample 3/4 of the nearer
// input and 1/4 of the farther one on each subsampled axis, with
// libjpeg's alternating rounding biases, cropped to w×h.
func fancyUpsample(p []uint8, cw, ch, hs, vs, w, h int) []uint8 {
	if hs == 1 && vs == 1 {
		return p
	}
	out := make([]uint8, w*h)
	row := make([]int32, cw)    // the column sums of one output row
	line := make([]uint8, 2*cw) // one upsampled row before cropping
	for oy := range h {
		iy := oy / vs
		for c := range cw {
			if vs == 1 {
				row[c] = int32(p[iy*cw+c])
				continue
			}
			far := iy - 1 // the row above for an upper output row
			if oy%2 == 1 {
				far = iy + 1
			}
			far = max(0, min(ch-1, far))
			row[c] = 3*int32(p[iy*cw+c]) + int32(p[far*cw+c])
		}
		// Horizontal: sums of weight 4 (vs 1) or 16 (vs 2).
		shift, bias0, bias1 := int32(2), int32(1), int32(2)
		if vs == 2 {
			shift, bias0, bias1 = 4, 8, 7
		}
		if cw == 1 {
			line[0] = uint8((row[0]*4 + bias1) >> shift)
			line[1] = line[0]
		} else {
			for c := range cw {
				left, right := row[max(c-1, 0)], row[min(c+1, cw-1)]
				l, r := 3*row[c]+left, 3*row[c]+right
				if c == 0 {
					l = 4 * row[c]
				}
				if c == cw-1 {
					r = 4 * row[c]
				}
				line[2*c] = uint8((l + bias0) >> shift)
				line[2*c+1] = uint8((r + bias1) >> shift)
			}
		}
		copy(out[oy*w:(oy+1)*w], line[:w])
	}
	return out
}
