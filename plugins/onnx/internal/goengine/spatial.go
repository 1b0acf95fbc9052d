package goengine

// spatial holds the window attributes shared by Conv and the pooling
// operators, for 2-D inputs.
type spatial struct {
	autoPad   string
	kernel    []int // kernel_shape; nil means "from the weights" (Conv)
	strides   []int
	dilations []int
	pads      []int // begin0, begin1, end0, end1
	ceil      bool
}

// readSpatial reads auto_pad, kernel_shape, strides, dilations and pads.
func readSpatial(a *attrs, withDilations bool) (spatial, error) {
	s := spatial{
		autoPad: a.str("auto_pad", "NOTSET"),
		kernel:  a.ints("kernel_shape", nil),
		strides: a.ints("strides", []int{1, 1}),
		pads:    a.ints("pads", []int{0, 0, 0, 0}),
	}
	s.dilations = []int{1, 1}
	if withDilations {
		s.dilations = a.ints("dilations", s.dilations)
	}
	if a.err != nil {
		return s, a.err
	}
	switch s.autoPad {
	case "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER":
	default:
		return s, invalid("auto_pad %q", s.autoPad)
	}
	if s.kernel != nil && len(s.kernel) != 2 {
		return s, unsupported("%d-D kernel (only 2-D)", len(s.kernel))
	}
	if len(s.strides) != 2 || len(s.dilations) != 2 || len(s.pads) != 4 {
		return s, unsupported("strides %v, dilations %v, pads %v (only 2-D)", s.strides, s.dilations, s.pads)
	}
	for i := range 2 {
		if s.strides[i] <= 0 || s.dilations[i] <= 0 || (s.kernel != nil && s.kernel[i] <= 0) {
			return s, invalid("non-positive kernel %v, strides %v or dilations %v", s.kernel, s.strides, s.dilations)
		}
	}
	for _, p := range s.pads {
		if p < 0 {
			return s, unsupported("negative pads %v", s.pads)
		}
	}
	return s, nil
}

// window is the resolved geometry for one input size.
type window struct {
	kh, kw, sh, sw, dh, dw int
	padT, padL, padB, padR int
	oh, ow                 int
}

// resolve computes pads and output size for an h×w input and a kh×kw
// kernel, following auto_pad and ceil_mode.
func (s *spatial) resolve(h, w, kh, kw int) (window, error) {
	win := window{kh: kh, kw: kw, sh: s.strides[0], sw: s.strides[1], dh: s.dilations[0], dw: s.dilations[1]}
	in := [2]int{h, w}
	k := [2]int{kh, kw}
	var pb, pe, out [2]int
	for i := range 2 {
		ext := (k[i]-1)*s.dilations[i] + 1
		st := s.strides[i]
		switch s.autoPad {
		case "VALID":
			out[i] = (in[i]-ext)/st + 1
		case "SAME_UPPER", "SAME_LOWER":
			out[i] = (in[i] + st - 1) / st
			total := max(0, (out[i]-1)*st+ext-in[i])
			pb[i] = total / 2
			if s.autoPad == "SAME_LOWER" {
				pb[i] = total - total/2
			}
			pe[i] = total - pb[i]
		default:
			pb[i], pe[i] = s.pads[i], s.pads[i+2]
			span := in[i] + pb[i] + pe[i] - ext
			if span < 0 {
				return win, invalid("kernel %v larger than padded input %v", k, in)
			}
			out[i] = span/st + 1
			if s.ceil && span%st != 0 {
				out[i]++
				// The last window must start inside the input or its
				// leading padding (PyTorch and ONNX Runtime agree).
				if (out[i]-1)*st >= in[i]+pb[i] {
					out[i]--
				}
			}
		}
		if in[i]-ext < 0 && s.autoPad == "VALID" || out[i] <= 0 {
			return win, invalid("kernel %v larger than input %v", k, in)
		}
		// Windows may never start in the trailing padding only; the
		// output size guarantees it, the kernels rely on it.
	}
	win.padT, win.padL, win.padB, win.padR = pb[0], pb[1], pe[0], pe[1]
	win.oh, win.ow = out[0], out[1]
	return win, nil
}
