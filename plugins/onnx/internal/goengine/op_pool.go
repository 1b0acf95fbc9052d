package goengine

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// poolOp is MaxPool or AveragePool over 2-D windows.
type poolOp struct {
	kind       kernels.PoolKind
	sp         spatial
	includePad bool
}

func newMaxPool(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	sp, err := readSpatial(a, opset >= 10)
	if err != nil {
		return nil, err
	}
	if opset >= 10 {
		sp.ceil = a.int("ceil_mode", 0) != 0
	}
	if a.int("storage_order", 0) != 0 {
		return nil, unsupported("storage_order=1")
	}
	if sp.kernel == nil {
		return nil, invalid("kernel_shape is required")
	}
	if err := wantInputs(n, 1, 1); err != nil {
		return nil, err
	}
	return &poolOp{kind: kernels.MaxPool, sp: sp}, wantOutputs(n, 2)
}

func newAvgPool(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	sp, err := readSpatial(a, opset >= 19)
	if err != nil {
		return nil, err
	}
	if opset >= 10 {
		sp.ceil = a.int("ceil_mode", 0) != 0
	}
	if sp.kernel == nil {
		return nil, invalid("kernel_shape is required")
	}
	o := &poolOp{kind: kernels.AvgPool, sp: sp, includePad: a.int("count_include_pad", 0) != 0}
	return o, checkIO(n, 1, 1)
}

func (o *poolOp) infer(in, out []*tensor) error {
	x := in[0]
	if x.dt != onnxpb.Float || len(x.shape) != 4 {
		return unsupported("input %v%v (only 2-D float pooling)", x.dt, x.shape)
	}
	win, err := o.sp.resolve(x.shape[2], x.shape[3], o.sp.kernel[0], o.sp.kernel[1])
	if err != nil {
		return err
	}
	out[0].dt, out[0].shape = onnxpb.Float, []int{x.shape[0], x.shape[1], win.oh, win.ow}
	return nil
}

func (o *poolOp) bind(env *bindEnv, in, out []*tensor) (step, error) {
	x := in[0]
	win, err := o.sp.resolve(x.shape[2], x.shape[3], o.sp.kernel[0], o.sp.kernel[1])
	if err != nil {
		return nil, err
	}
	t := &kernels.PoolTask{Kind: o.kind, X: x.f, Y: out[0].f, Shape: kernels.PoolShape{
		C: x.shape[1], H: x.shape[2], W: x.shape[3], KH: win.kh, KW: win.kw, SH: win.sh, SW: win.sw,
		DH: win.dh, DW: win.dw, PadT: win.padT, PadL: win.padL, PadB: win.padB, PadR: win.padR,
		OH: win.oh, OW: win.ow, CountIncludePad: o.includePad,
	}}
	planes := x.shape[0] * x.shape[1]
	return runFunc(func(pool *kernels.Pool) { env.gemm.RunPool(pool, t, planes) }), nil
}

// globalAvgPoolOp averages over all spatial dimensions.
type globalAvgPoolOp struct{}

func newGlobalAvgPool(_ *attrs, n *onnxpb.Node, _ int64) (op, error) {
	return globalAvgPoolOp{}, checkIO(n, 1, 1)
}

func (globalAvgPoolOp) infer(in, out []*tensor) error {
	x := in[0]
	if x.dt != onnxpb.Float || len(x.shape) < 3 {
		return unsupported("input %v%v", x.dt, x.shape)
	}
	shape := append([]int{}, x.shape...)
	for i := 2; i < len(shape); i++ {
		shape[i] = 1
	}
	out[0].dt, out[0].shape = onnxpb.Float, shape
	return nil
}

func (globalAvgPoolOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	x := in[0]
	t := &kernels.GlobalAvgTask{Size: numel(x.shape[2:]), X: x.f, Y: out[0].f}
	planes := x.shape[0] * x.shape[1]
	work := x.size()
	return runFunc(func(pool *kernels.Pool) { pool.ForWork(planes, work, t) }), nil
}
