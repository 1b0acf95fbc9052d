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
// stride and padding). The plane is first copied into a zero-padded
// scratch plane, so every output column reads three in-range rows: one
// uniform loop per output row, vectorized for stride 1 when vec is set.
func depthwise3x3(s *ConvShape, in, out, res, w []float32, bias float32, act Activation, sc *Scratch,
	vec func(n int, r0, r1, r2, out, w []float32, ep *tileEpilogue)) {
	oh, ow := s.OutH(), s.OutW()
	hp := max(s.H+s.PadT, (oh-1)*s.SH+3)
	wp := max(s.W+s.PadL, (ow-1)*s.SW+3)
	pad := buf(&sc.cols, hp*wp)
	clear(pad)
	for y := range s.H {
		copy(pad[(y+s.PadT)*wp+s.PadL:], in[y*s.W:(y+1)*s.W])
	}
	w0, w1, w2, w3, w4, w5, w6, w7, w8 := w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]
	useVec := vec != nil && s.SW == 1 && res == nil && ow >= 16
	if useVec {
		sc.one[0] = bias
		sc.ep = tileEpilogue{biasS: sc.one[:], bias: &sc.one[0]}
		switch act.Kind {
		case ActRelu:
			sc.ep.act = 1
		case ActClip:
			sc.ep.act, sc.ep.lo, sc.ep.hi = 2, act.Min, act.Max
		}
	}
	for oy := range oh {
		y := oy * s.SH
		r0, r1, r2 := pad[y*wp:(y+1)*wp], pad[(y+1)*wp:(y+2)*wp], pad[(y+2)*wp:(y+3)*wp]
		orow := out[oy*ow : (oy+1)*ow]
		start := 0
		if useVec {
			start = ow &^ 15
			vec(start, r0, r1, r2, orow, w, &sc.ep)
		}
		for ox := start; ox < ow; ox++ {
			x := ox * s.SW
			a, b, c := r0[x:x+3:x+3], r1[x:x+3:x+3], r2[x:x+3:x+3]
			orow[ox] = bias + w0*a[0] + w1*a[1] + w2*a[2] + w3*b[0] + w4*b[1] + w5*b[2] + w6*c[0] + w7*c[1] + w8*c[2]
		}
		if res != nil {
			for i, v := range res[oy*ow : (oy+1)*ow] {
				orow[i] += v
			}
		}
		act.Apply(orow[start:])
	}
}
