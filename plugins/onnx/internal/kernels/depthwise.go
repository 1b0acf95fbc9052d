package kernels

// depthwiseTask runs a depthwise convolution (one filter per channel) one
// (image, channel) plane per task.
type depthwiseTask struct {
	c         *Conv
	x, y, res []float32
}

// Run implements Tasker.
func (t *depthwiseTask) Run(task int, _ *Scratch) {
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
