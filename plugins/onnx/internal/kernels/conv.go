package kernels

import (
	"errors"
	"fmt"
)

// ConvShape describes a 2-D convolution over NCHW tensors (the batch size
// is given per run).
type ConvShape struct {
	C, H, W                int // input channels and spatial size
	M                      int // output channels
	KH, KW                 int
	SH, SW                 int // strides
	DH, DW                 int // dilations
	PadT, PadL, PadB, PadR int
	Group                  int
}

// OutH is the output height.
func (s *ConvShape) OutH() int { return (s.H+s.PadT+s.PadB-((s.KH-1)*s.DH+1))/s.SH + 1 }

// OutW is the output width.
func (s *ConvShape) OutW() int { return (s.W+s.PadL+s.PadR-((s.KW-1)*s.DW+1))/s.SW + 1 }

// ErrConvShape reports an inconsistent convolution.
var ErrConvShape = errors.New("bad convolution shape")

// Validate checks that the shape is consistent and positive.
func (s *ConvShape) Validate() error {
	switch {
	case s.C <= 0 || s.H <= 0 || s.W <= 0 || s.M <= 0 || s.KH <= 0 || s.KW <= 0:
		return fmt.Errorf("%w: non-positive size in %+v", ErrConvShape, *s)
	case s.SH <= 0 || s.SW <= 0 || s.DH <= 0 || s.DW <= 0:
		return fmt.Errorf("%w: non-positive stride or dilation in %+v", ErrConvShape, *s)
	case s.PadT < 0 || s.PadL < 0 || s.PadB < 0 || s.PadR < 0:
		return fmt.Errorf("%w: negative padding in %+v", ErrConvShape, *s)
	case s.Group <= 0 || s.C%s.Group != 0 || s.M%s.Group != 0:
		return fmt.Errorf("%w: %d groups do not divide %d input and %d output channels", ErrConvShape, s.Group, s.C, s.M)
	case s.OutH() <= 0 || s.OutW() <= 0:
		return fmt.Errorf("%w: kernel larger than padded input in %+v", ErrConvShape, *s)
	}
	return nil
}

// Conv is a planned convolution: weights packed once, then Run per batch.
// A Conv keeps per-run state and must not be run concurrently with itself.
type Conv struct {
	s      ConvShape
	g      *Gemm
	packed []PackedA // one per group
	bias   []float32
	act    Activation
	// dw holds the weights of a depthwise convolution (one filter per
	// channel), which runs a direct kernel instead of a GEMM.
	dw   []float32
	dwT  depthwiseTask
	call GemmCall
	im   im2colSource
	mat  MatSource
	// taps holds, for each GEMM row k of the implicit im2col matrix, the
	// input plane offset and the (dy, dx) shift of its kernel tap.
	taps []convTap
	// wino is the Winograd plan of a 3×3 stride-1 convolution that runs
	// as Winograd minimal filtering (WASM SIMD kernels only), else nil.
	wino *winogradPlan
}

// convTap locates one row of the implicit im2col matrix.
type convTap struct{ plane, dy, dx int }

// NewConv plans a convolution with weights w ([M, C/Group, KH, KW]),
// optional bias (len M) and a fused activation.
func NewConv(g *Gemm, s ConvShape, w, bias []float32, act Activation) (*Conv, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cg, mg := s.C/s.Group, s.M/s.Group
	k := cg * s.KH * s.KW
	if len(w) != s.M*k {
		return nil, fmt.Errorf("%w: %d weights, want %d", ErrConvShape, len(w), s.M*k)
	}
	if bias != nil && len(bias) != s.M {
		return nil, fmt.Errorf("%w: %d biases, want %d", ErrConvShape, len(bias), s.M)
	}
	c := &Conv{s: s, g: g, bias: bias, act: act}
	if s.Group == s.C && s.M == s.C {
		c.dw = w
		return c, nil
	}
	if g.whole != nil && g.whole.planWinograd != nil && winogradEligible(&s) {
		if p, ok := g.whole.planWinograd(&s, w, g.winograd); ok {
			c.wino = p
			return c, nil
		}
	}
	c.taps = make([]convTap, k)
	for kk := range c.taps {
		ch, r := kk/(s.KH*s.KW), kk%(s.KH*s.KW)
		c.taps[kk] = convTap{plane: ch * s.H * s.W, dy: r/s.KW*s.DH - s.PadT, dx: r%s.KW*s.DW - s.PadL}
	}
	c.packed = make([]PackedA, s.Group)
	if g.whole != nil && g.whole.packPointwise != nil && s.Group == 1 && c.pointwise() {
		if pa, ok := g.whole.packPointwise(w, s.M, k); ok {
			c.packed[0] = pa
			return c, nil
		}
	}
	for gi := range s.Group {
		c.packed[gi] = g.PackA(nil, RowMajor(w[gi*mg*k:], k), mg, k)
	}
	return c, nil
}

// Shape returns the planned shape.
func (c *Conv) Shape() ConvShape { return c.s }

// pointwise reports whether the convolution is a plain matrix product
// over the input (1×1 kernel, unit stride, no padding).
func (c *Conv) pointwise() bool {
	s := &c.s
	return s.KH == 1 && s.KW == 1 && s.SH == 1 && s.SW == 1 && s.PadT == 0 && s.PadL == 0 && s.PadB == 0 && s.PadR == 0
}

// Run convolves x ([n, C, H, W]) into y ([n, M, OutH, OutW]). When
// residual is not nil (same shape as y) it is added before the activation.
func (c *Conv) Run(pool *Pool, n int, x, y, residual []float32) {
	s := &c.s
	oh, ow := s.OutH(), s.OutW()
	p := oh * ow
	if c.dw != nil {
		if c.g.whole != nil {
			c.g.whole.depthwise(c, n, x, y, residual, &pool.scratch[0])
			return
		}
		c.dwT = depthwiseTask{c: c, x: x, y: y, res: residual}
		pool.ForWork(n*s.C, n*s.M*p*s.KH*s.KW, &c.dwT)
		return
	}
	if c.wino != nil {
		c.g.whole.winograd(c, n, x, y, residual, &pool.scratch[0])
		return
	}
	cg, mg := s.C/s.Group, s.M/s.Group
	var src BSource
	if c.pointwise() {
		c.mat = MatSource{M: RowMajor(x, p), BatchStride: cg * p}
		src = &c.mat
	} else {
		c.im = im2colSource{s: s, x: x, ow: ow, taps: c.taps}
		src = &c.im
	}
	c.call = GemmCall{
		M: mg, N: p, K: cg * s.KH * s.KW, Batch: n * s.Group, AGroups: c.packed,
		B: src, C: RowMajor(y, p), CBatchStride: mg * p,
		Ep: Epilogue{Alpha: 1, Bias: c.bias, BiasPerRow: true, Act: c.act},
	}
	if residual != nil {
		c.call.Ep.Residual = RowMajor(residual, p)
	}
	c.g.Run(pool, &c.call)
}

// im2colSource packs convolution patches straight into GEMM B panels:
// row k = (channel, ky, kx) of the group, column j = output pixel. Batch
// item b is image b/Group, group b%Group.
type im2colSource struct {
	s    *ConvShape
	x    []float32
	ow   int
	taps []convTap
}

// PackB implements BSource.
func (m *im2colSource) PackB(dst []float32, b, k0, kc, j0, nc, nr int) {
	s := m.s
	cg := s.C / s.Group
	img := m.x[(b/s.Group)*s.C*s.H*s.W+(b%s.Group)*cg*s.H*s.W:]
	hw := s.H * s.W
	for q := 0; q*nr < nc; q++ {
		panel := dst[q*kc*nr : (q+1)*kc*nr]
		cols := min(nr, nc-q*nr)
		jStart := j0 + q*nr
		oy0, ox0 := jStart/m.ow, jStart%m.ow
		for kk, tap := range m.taps[k0 : k0+kc] {
			plane := img[tap.plane : tap.plane+hw]
			row := panel[kk*nr : kk*nr+nr]
			oy, ox := oy0, ox0
			dy, dx := tap.dy, tap.dx
			for col := 0; col < cols; {
				iy := oy*s.SH + dy
				// Columns left on this output row.
				run := min(cols-col, m.ow-ox)
				if iy < 0 || iy >= s.H {
					clear(row[col : col+run])
				} else {
					line := plane[iy*s.W : (iy+1)*s.W]
					out := row[col : col+run]
					ix := ox*s.SW + dx
					if s.SW == 1 && ix >= 0 && ix+run <= s.W {
						copy(out, line[ix:ix+run])
					} else {
						for i := range out {
							if uint(ix) < uint(s.W) {
								out[i] = line[ix]
							} else {
								out[i] = 0
							}
							ix += s.SW
						}
					}
				}
				col += run
				ox += run
				if ox == m.ow {
					ox = 0
					oy++
				}
			}
			clear(row[cols:])
		}
	}
}
