package goengine

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// convOp is a 2-D Conv, possibly with a fused activation and a fused
// residual Add (an extra fourth input).
type convOp struct {
	sp    spatial
	group int
	act   kernels.Activation
	// residual is true when fusion appended a residual input (index 3).
	residual bool
	// cache holds the planned kernels per input (C, H, W): weights are
	// packed once and shared by every plan.
	cache map[[3]int]*kernels.Conv
}

func newConv(a *attrs, n *onnxpb.Node, _ int64) (op, error) {
	sp, err := readSpatial(a, true)
	if err != nil {
		return nil, err
	}
	o := &convOp{sp: sp, group: int(a.int("group", 1)), cache: map[[3]int]*kernels.Conv{}}
	if o.group <= 0 {
		return nil, invalid("group %d", o.group)
	}
	return o, checkIO(n, 2, 3)
}

func (o *convOp) infer(in, out []*tensor) error {
	x, w := in[0], in[1]
	if x.dt != onnxpb.Float || len(x.shape) != 4 {
		return unsupported("input %v%v (only 2-D float convolution)", x.dt, x.shape)
	}
	if !w.konst {
		return unsupported("weights computed at run time")
	}
	if w.dt != onnxpb.Float || len(w.shape) != 4 {
		return invalid("weights %v%v", w.dt, w.shape)
	}
	if o.sp.kernel != nil && (o.sp.kernel[0] != w.shape[2] || o.sp.kernel[1] != w.shape[3]) {
		return invalid("kernel_shape %v does not match weights %v", o.sp.kernel, w.shape)
	}
	m, c := w.shape[0], x.shape[1]
	if c%o.group != 0 || m%o.group != 0 || w.shape[1]*o.group != c {
		return invalid("weights %v with %d groups do not fit %d input channels", w.shape, o.group, c)
	}
	if len(in) > 2 && in[2] != nil {
		b := in[2]
		if !b.konst {
			return unsupported("bias computed at run time")
		}
		if b.dt != onnxpb.Float || len(b.f) != m {
			return invalid("bias %v%v for %d output channels", b.dt, b.shape, m)
		}
	}
	win, err := o.sp.resolve(x.shape[2], x.shape[3], w.shape[2], w.shape[3])
	if err != nil {
		return err
	}
	out[0].dt, out[0].shape = onnxpb.Float, []int{x.shape[0], m, win.oh, win.ow}
	if o.residual {
		if r := in[3]; r.dt != onnxpb.Float || !shapeEq(r.shape, out[0].shape) {
			return invalid("fused residual %v%v does not match output %v", r.dt, r.shape, out[0].shape)
		}
	}
	return nil
}

func (o *convOp) kernel(env *bindEnv, in []*tensor) (*kernels.Conv, error) {
	x, w := in[0], in[1]
	key := [3]int{x.shape[1], x.shape[2], x.shape[3]}
	if c, ok := o.cache[key]; ok {
		return c, nil
	}
	win, err := o.sp.resolve(x.shape[2], x.shape[3], w.shape[2], w.shape[3])
	if err != nil {
		return nil, err
	}
	var bias []float32
	if len(in) > 2 && in[2] != nil {
		bias = in[2].f
	}
	c, err := kernels.NewConv(env.gemm, kernels.ConvShape{
		C: key[0], H: key[1], W: key[2], M: w.shape[0], KH: win.kh, KW: win.kw,
		SH: win.sh, SW: win.sw, DH: win.dh, DW: win.dw,
		PadT: win.padT, PadL: win.padL, PadB: win.padB, PadR: win.padR, Group: o.group,
	}, w.f, bias, o.act)
	if err != nil {
		return nil, invalid("%v", err)
	}
	o.cache[key] = c
	return c, nil
}

func (o *convOp) bind(env *bindEnv, in, out []*tensor) (step, error) {
	c, err := o.kernel(env, in)
	if err != nil {
		return nil, err
	}
	n := in[0].shape[0]
	x, y := in[0].f, out[0].f
	var res []float32
	if o.residual {
		res = in[3].f
	}
	return runFunc(func(pool *kernels.Pool) { c.Run(pool, n, x, y, res) }), nil
}
