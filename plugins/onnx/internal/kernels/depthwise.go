package kernels

// depthwiseTask runs a depthwise convolution (one filter per channel) one
// (image, channel) plane per task.
type depthwiseTask struct {
	c         *Conv
	x, y, res []float32
}

// Run implements Tasker.
func (t *depthwiseTask) Run(task int, sc *Scratch) {
	c := t.c
	s := &c.s
	oh, ow := s.OutH(), s.OutW()
	ch := task % s.C
	in := t.x[task*s.H*s.W : (task+1)*s.H*s.W]
	out := t.y[task*oh*ow : (task+1)*oh*ow]
	w := c.dw[ch*s.KH*s.KW : (ch+1)*s.KH*s.KW]
	var bias float32
	if c.bias != nil {
		bias = c.bias[ch]
	}
	var res []float32
	if t.res != nil {
		res = t.res[task*oh*ow : (task+1)*oh*ow]
	}
	if s.KH == 3 && s.KW == 3 && s.DH == 1 && s.DW == 1 {
		depthwise3x3(s, in, out, res, w, bias, c.act, sc, c.g.dwRow)
		return
	}
	for oy := range oh {
		orow := out[oy*ow : (oy+1)*ow]
		for i := range orow {
			orow[i] = bias
		}
		for ky := range s.KH {
			iy := oy*s.SH + ky*s.DH - s.PadT
			if iy < 0 || iy >= s.H {
				continue
			}
			irow := in[iy*s.W : (iy+1)*s.W]
			for kx := range s.KW {
				wv := w[ky*s.KW+kx]
				off := kx*s.DW - s.PadL
				// Output columns whose input column off+ox*SW is inside
				// the row: lo..hi-1.
				lo := 0
				if off < 0 {
					lo = ceilDiv(-off, s.SW)
				}
				hi := ow
				if last := (s.W - 1 - off); last < (ow-1)*s.SW {
					hi = 0
					if last >= 0 {
						hi = last/s.SW + 1
					}
				}
				if lo >= hi {
					continue
				}
				axpyStrided(orow[lo:hi], irow[off+lo*s.SW:], s.SW, wv)
			}
		}
		if res != nil {
			rrow := res[oy*ow : (oy+1)*ow]
			for i := range orow {
				orow[i] += rrow[i]
			}
		}
		c.act.Apply(orow)
	}
}

// axpyStrided does dst[i] += a*src[i*stride].
func axpyStrided(dst, src []float32, stride int, a float32) {
	if stride == 1 {
		src = src[:len(dst)]
		for i, v := range src {
			dst[i] += a * v
		}
		return
	}
	_ = src[(len(dst)-1)*stride]
	for i := range dst {
		dst[i] += a * src[i*stride]
	}
}

// depthwise3x3 is the common depthwise case (3×3, no dilation, any
// stride and padding): one pass per output row over three input rows,
// with the bounds checks confined to the border columns. Rows outside
// the input read a zero row.
func depthwise3x3(s *ConvShape, in, out, res, w []float32, bias float32, act Activation, sc *Scratch,
	vec func(n int, r0, r1, r2, out, w []float32, ep *tileEpilogue)) {
	oh, ow := s.OutH(), s.OutW()
	zero := buf(&sc.cols, s.W)
	clear(zero)
	w0, w1, w2, w3, w4, w5, w6, w7, w8 := w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]
	// Interior columns: ox*SW-PadL >= 0 and ox*SW-PadL+2 < W.
	lo := ceilDiv(s.PadL, s.SW)
	hi := 0
	if s.W-3+s.PadL >= 0 {
		hi = min(ow, (s.W-3+s.PadL)/s.SW+1)
	}
	lo = min(lo, ow)
	hi = max(hi, lo)
	row := func(iy int) []float32 {
		if iy < 0 || iy >= s.H {
			return zero
		}
		return in[iy*s.W : (iy+1)*s.W]
	}
	for oy := range oh {
		iy := oy*s.SH - s.PadT
		r0, r1, r2 := row(iy), row(iy+1), row(iy+2)
		orow := out[oy*ow : (oy+1)*ow]
		at := func(r []float32, ix int) float32 {
			if uint(ix) < uint(s.W) {
				return r[ix]
			}
			return 0
		}
		edge := func(ox int) float32 {
			ix := ox*s.SW - s.PadL
			return bias +
				w0*at(r0, ix) + w1*at(r0, ix+1) + w2*at(r0, ix+2) +
				w3*at(r1, ix) + w4*at(r1, ix+1) + w5*at(r1, ix+2) +
				w6*at(r2, ix) + w7*at(r2, ix+1) + w8*at(r2, ix+2)
		}
		for ox := 0; ox < lo; ox++ {
			orow[ox] = edge(ox)
		}
		ix := lo*s.SW - s.PadL
		start := lo
		if vec != nil && s.SW == 1 && res == nil && hi-lo >= 16 {
			// The vector routine covers the interior's multiple of 16 and
			// applies the activation itself.
			n := (hi - lo) &^ 15
			ep := &sc.ep
			sc.one[0] = bias
			*ep = tileEpilogue{biasS: sc.one[:], bias: &sc.one[0]}
			switch act.Kind {
			case ActRelu:
				ep.act = 1
			case ActClip:
				ep.act, ep.lo, ep.hi = 2, act.Min, act.Max
			}
			vec(n, r0[ix:], r1[ix:], r2[ix:], orow[lo:], w, ep)
			act.Apply(orow[:lo])
			start = lo + n
			ix += n
		}
		for ox := start; ox < hi; ox++ {
			a, b, c := r0[ix:ix+3:ix+3], r1[ix:ix+3:ix+3], r2[ix:ix+3:ix+3]
			orow[ox] = bias + w0*a[0] + w1*a[1] + w2*a[2] + w3*b[0] + w4*b[1] + w5*b[2] + w6*c[0] + w7*c[1] + w8*c[2]
			ix += s.SW
		}
		for ox := hi; ox < ow; ox++ {
			orow[ox] = edge(ox)
		}
		if res != nil {
			for i, v := range res[oy*ow : (oy+1)*ow] {
				orow[i] += v
			}
		}
		if start == lo {
			act.Apply(orow)
		} else {
			act.Apply(orow[start:])
		}
	}
}
