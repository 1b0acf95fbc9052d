package goengine

import (
	"math"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// actOp is Relu or Clip: a float activation, possibly fused later.
type actOp struct {
	act kernels.Activation
	// clipInputs is true for Clip-11+, whose bounds are inputs 1 and 2.
	clipInputs bool
}

func newUnary(_ *attrs, n *onnxpb.Node, _ int64) (op, error) {
	if err := checkIO(n, 1, 1); err != nil {
		return nil, err
	}
	return &actOp{act: kernels.Relu()}, nil
}

func newClip(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	o := &actOp{act: kernels.Clip(float32(math.Inf(-1)), float32(math.Inf(1)))}
	if opset < 11 {
		if err := checkIO(n, 1, 1); err != nil {
			return nil, err
		}
		o.act.Min = a.float("min", o.act.Min)
		o.act.Max = a.float("max", o.act.Max)
		return o, nil
	}
	o.clipInputs = true
	return o, checkIO(n, 1, 3)
}

func (o *actOp) infer(in, out []*tensor) error {
	if in[0].dt != onnxpb.Float {
		return unsupported("input type %v", in[0].dt)
	}
	if o.clipInputs {
		for i, t := range in[1:] {
			if t == nil {
				continue
			}
			if !t.konst {
				return unsupported("Clip bound %d computed at run time", i+1)
			}
			if _, err := t.scalarFloat(); err != nil {
				return invalid("Clip bound %d: %v", i+1, err)
			}
		}
	}
	out[0].dt, out[0].shape = onnxpb.Float, in[0].shape
	return nil
}

// resolve returns the activation with Clip-11 bounds read from inputs.
func (o *actOp) resolve(in []*tensor) kernels.Activation {
	act := o.act
	if o.clipInputs {
		if len(in) > 1 && in[1] != nil {
			act.Min, _ = in[1].scalarFloat()
		}
		if len(in) > 2 && in[2] != nil {
			act.Max, _ = in[2].scalarFloat()
		}
	}
	return act
}

func (o *actOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	act := o.resolve(in)
	x, y := in[0].f, out[0].f
	return &chunked{n: len(y), fn: func(lo, hi int) {
		copy(y[lo:hi], x[lo:hi])
		act.Apply(y[lo:hi])
	}}, nil
}

// binKind is an arithmetic binary operator.
type binKind uint8

const (
	binAdd binKind = iota
	binSub
	binMul
	binDiv
)

// binaryOp is Add, Sub, Mul or Div with multidirectional broadcasting.
type binaryOp struct{ kind binKind }

func newBinary(_ *attrs, n *onnxpb.Node, _ int64) (op, error) {
	kinds := map[string]binKind{"Add": binAdd, "Sub": binSub, "Mul": binMul, "Div": binDiv}
	return &binaryOp{kind: kinds[n.OpType]}, checkIO(n, 2, 2)
}

func (o *binaryOp) infer(in, out []*tensor) error {
	a, b := in[0], in[1]
	if b == nil {
		return invalid("second input is missing")
	}
	if a.dt != b.dt {
		return invalid("input types differ: %v and %v", a.dt, b.dt)
	}
	if a.dt != onnxpb.Float && a.dt != onnxpb.Int64 {
		return unsupported("input type %v", a.dt)
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return invalid("%v", err)
	}
	out[0].dt, out[0].shape = a.dt, shape
	return nil
}

func (o *binaryOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	it := newBroadcast(out[0].shape, in[0].shape, in[1].shape)
	kind := o.kind
	if out[0].dt == onnxpb.Int64 {
		x, y, z := in[0].i, in[1].i, out[0].i
		return runFunc(func(*kernels.Pool) {
			it.each(func(o, a, b, n, sa, sb int) { binLoop(kind, z[o:o+n], x[a:], y[b:], sa, sb) })
		}), nil
	}
	x, y, z := in[0].f, in[1].f, out[0].f
	return runFunc(func(*kernels.Pool) {
		it.each(func(o, a, b, n, sa, sb int) { binLoop(kind, z[o:o+n], x[a:], y[b:], sa, sb) })
	}), nil
}

// binLoop computes dst[i] = a[i*sa] op b[i*sb]. Integer division by zero
// gives 0 (ONNX leaves it undefined; a hostile model must not crash us).
func binLoop[T float32 | int64](kind binKind, dst, a, b []T, sa, sb int) {
	if sa == 1 && sb == 1 {
		a, b = a[:len(dst)], b[:len(dst)]
		switch kind {
		case binAdd:
			for i := range dst {
				dst[i] = a[i] + b[i]
			}
			return
		case binMul:
			for i := range dst {
				dst[i] = a[i] * b[i]
			}
			return
		}
	}
	for i := range dst {
		x, y := a[i*sa], b[i*sb]
		var z T
		switch kind {
		case binAdd:
			z = x + y
		case binSub:
			z = x - y
		case binMul:
			z = x * y
		case binDiv:
			if y == 0 && isInt(y) {
				z = 0
			} else {
				z = x / y
			}
		}
		dst[i] = z
	}
}

func isInt[T float32 | int64](v T) bool {
	switch any(v).(type) {
	case int64:
		return true
	}
	return false
}

// broadcastShape is numpy's multidirectional broadcast of two shapes.
func broadcastShape(a, b []int) ([]int, error) {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := range n {
		da, db := dimFromEnd(a, n-1-i), dimFromEnd(b, n-1-i)
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, errShapes(a, b)
		}
	}
	return out, nil
}

func errShapes(a, b []int) error { return &shapeError{a, b} }

type shapeError struct{ a, b []int }

func (e *shapeError) Error() string {
	return "shapes " + fmtShape(e.a) + " and " + fmtShape(e.b) + " do not broadcast"
}

func fmtShape(s []int) string {
	out := "["
	for i, d := range s {
		if i > 0 {
			out += ","
		}
		out += itoa(d)
	}
	return out + "]"
}

// dimFromEnd returns the dimension of s aligned to position i of a shape
// of rank len(s)+k, counting from the end: 1 past the front.
func dimFromEnd(s []int, fromEnd int) int {
	if fromEnd < len(s) {
		return s[len(s)-1-fromEnd]
	}
	return 1
}

// broadcast iterates an output shape and two inputs broadcast to it, in
// rows of the innermost (collapsed) dimension.
type broadcast struct {
	dims   []int // collapsed output dims
	sa, sb []int // input strides per collapsed dim (0 when broadcast)
	idx    []int // scratch counter
}

func newBroadcast(out, a, b []int) *broadcast {
	n := len(out)
	strides := func(s []int) []int {
		st := make([]int, n)
		acc := 1
		for i := n - 1; i >= 0; i-- {
			d := dimFromEnd(s, n-1-i)
			if d != 1 {
				st[i] = acc
			}
			acc *= d
		}
		return st
	}
	sa, sb := strides(a), strides(b)
	it := &broadcast{}
	// Collapse dims i and i+1 when both inputs step through them as one.
	for i := range n {
		if out[i] == 1 {
			continue
		}
		k := len(it.dims) - 1
		if k >= 0 && it.sa[k] == sa[i]*out[i] && it.sb[k] == sb[i]*out[i] {
			it.dims[k] *= out[i]
			it.sa[k], it.sb[k] = sa[i], sb[i]
			continue
		}
		it.dims = append(it.dims, out[i])
		it.sa = append(it.sa, sa[i])
		it.sb = append(it.sb, sb[i])
	}
	if len(it.dims) == 0 {
		it.dims, it.sa, it.sb = []int{1}, []int{0}, []int{0}
	}
	it.idx = make([]int, len(it.dims))
	return it
}

// each calls fn once per innermost row with the output offset, the input
// offsets, the row length and the input strides along the row.
func (it *broadcast) each(fn func(o, a, b, n, sa, sb int)) {
	last := len(it.dims) - 1
	n, sa, sb := it.dims[last], it.sa[last], it.sb[last]
	clear(it.idx)
	o, a, b := 0, 0, 0
	for {
		fn(o, a, b, n, sa, sb)
		o += n
		// Advance the outer counter.
		k := last - 1
		for ; k >= 0; k-- {
			it.idx[k]++
			a += it.sa[k]
			b += it.sb[k]
			if it.idx[k] < it.dims[k] {
				break
			}
			a -= it.sa[k] * it.dims[k]
			b -= it.sb[k] * it.dims[k]
			it.idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// batchNormOp is BatchNormalization in inference mode, folded at bind to
// y = x*scale[c] + shift[c]. The fusion pass folds it into a preceding
// Conv when it can.
type batchNormOp struct{ eps float32 }

func newBatchNorm(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	o := &batchNormOp{eps: a.float("epsilon", 1e-5)}
	a.float("momentum", 0.9) // training only
	if opset < 9 && a.int("spatial", 1) != 1 {
		return nil, unsupported("spatial=0")
	}
	if opset >= 14 && a.int("training_mode", 0) != 0 {
		return nil, unsupported("training_mode=1")
	}
	if err := wantInputs(n, 5, 5); err != nil {
		return nil, err
	}
	return o, wantOutputs(n, 5)
}

func (o *batchNormOp) infer(in, out []*tensor) error {
	x := in[0]
	if x.dt != onnxpb.Float || len(x.shape) < 2 {
		return unsupported("input %v%v", x.dt, x.shape)
	}
	for i, t := range in[1:] {
		if t == nil || !t.konst {
			return unsupported("parameter %d computed at run time", i+1)
		}
		if t.dt != onnxpb.Float || len(t.f) != x.shape[1] {
			return invalid("parameter %d is %v%v, want %d floats", i+1, t.dt, t.shape, x.shape[1])
		}
	}
	out[0].dt, out[0].shape = onnxpb.Float, x.shape
	return nil
}

// bnAffine returns the per-channel scale and shift of a batch norm.
func bnAffine(in []*tensor, eps float32) (scale, shift []float32) {
	g, b, mean, vr := in[1].f, in[2].f, in[3].f, in[4].f
	scale, shift = make([]float32, len(g)), make([]float32, len(g))
	for c := range g {
		s := g[c] / float32(math.Sqrt(float64(vr[c]+eps)))
		scale[c], shift[c] = s, b[c]-mean[c]*s
	}
	return scale, shift
}

func (o *batchNormOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	scale, shift := bnAffine(in, o.eps)
	sh := in[0].shape
	ch, plane := sh[1], numel(sh[2:])
	x, y := in[0].f, out[0].f
	var t taskFunc = func(task int, _ *kernels.Scratch) {
		c := task % ch
		s, b := scale[c], shift[c]
		xs, ys := x[task*plane:(task+1)*plane], y[task*plane:(task+1)*plane]
		for i, v := range xs {
			ys[i] = v*s + b
		}
	}
	planes, work := sh[0]*ch, numel(sh)
	return runFunc(func(pool *kernels.Pool) { pool.ForWork(planes, work, t) }), nil
}
