package goengine

import (
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// reshapeKind selects how a copyOp computes its output shape.
type reshapeKind uint8

const (
	kindIdentity reshapeKind = iota
	kindFlatten
	kindReshape
	kindSqueeze
	kindUnsqueeze
)

// copyOp covers the operators that only change the shape: Identity,
// Dropout (inference), Flatten, Reshape, Squeeze and Unsqueeze. They copy
// the data into their own output buffer.
type copyOp struct {
	kind      reshapeKind
	axis      int   // Flatten
	axes      []int // Squeeze/Unsqueeze from attributes (older opsets)
	axesInput bool  // Squeeze/Unsqueeze-13: axes is input 1
	allowZero bool  // Reshape-14
	// training is true for a Dropout with a training_mode input, which
	// must be a constant false.
	training bool
}

func newIdentity(_ *attrs, n *onnxpb.Node, _ int64) (op, error) {
	return &copyOp{kind: kindIdentity}, checkIO(n, 1, 1)
}

func newDropout(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	a.float("ratio", 0.5) // opset < 12; irrelevant for inference
	a.int("seed", 0)
	if opset < 7 {
		return nil, unsupported("Dropout before opset 7")
	}
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		// training_mode input: only a constant false is inference.
		return &copyOp{kind: kindIdentity, training: true}, checkDropout(n)
	}
	return &copyOp{kind: kindIdentity}, checkDropout(n)
}

func checkDropout(n *onnxpb.Node) error {
	if err := wantInputs(n, 1, 3); err != nil {
		return err
	}
	return wantOutputs(n, 2)
}

func newFlatten(a *attrs, n *onnxpb.Node, _ int64) (op, error) {
	return &copyOp{kind: kindFlatten, axis: int(a.int("axis", 1))}, checkIO(n, 1, 1)
}

func newReshape(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	o := &copyOp{kind: kindReshape}
	if opset >= 14 {
		o.allowZero = a.int("allowzero", 0) != 0
	}
	return o, checkIO(n, 2, 2)
}

func newSqueeze(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	return newAxesOp(a, n, opset, kindSqueeze)
}

func newUnsqueeze(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	return newAxesOp(a, n, opset, kindUnsqueeze)
}

func newAxesOp(a *attrs, n *onnxpb.Node, opset int64, kind reshapeKind) (op, error) {
	o := &copyOp{kind: kind}
	if opset >= 13 {
		o.axesInput = true
		return o, checkIO(n, 1, 2)
	}
	o.axes = a.ints("axes", nil)
	if kind == kindUnsqueeze && o.axes == nil {
		return nil, invalid("axes is required")
	}
	return o, checkIO(n, 1, 1)
}

func (o *copyOp) infer(in, out []*tensor) error {
	x := in[0]
	out[0].dt = x.dt
	switch o.kind {
	case kindIdentity:
		if o.training {
			if t := in[2]; !t.konst || len(t.u8) != 1 || t.u8[0] != 0 {
				return unsupported("training_mode is not a constant false")
			}
		}
		out[0].shape = x.shape
	case kindFlatten:
		axis := o.axis
		if axis < 0 {
			axis += len(x.shape)
		}
		if axis < 0 || axis > len(x.shape) {
			return invalid("axis %d for rank %d", o.axis, len(x.shape))
		}
		out[0].shape = []int{numel(x.shape[:axis]), numel(x.shape[axis:])}
	case kindReshape:
		return o.inferReshape(in, out)
	case kindSqueeze, kindUnsqueeze:
		return o.inferAxes(in, out)
	}
	return nil
}

func (o *copyOp) inferReshape(in, out []*tensor) error {
	x, s := in[0], in[1]
	if s == nil || !s.konst {
		return unsupported("shape computed at run time")
	}
	want, err := s.ints()
	if err != nil || len(s.shape) != 1 {
		return invalid("shape input %v%v: %v", s.dt, s.shape, err)
	}
	shape := make([]int, len(want))
	infer := -1
	for i, d := range want {
		switch {
		case d == -1:
			if infer >= 0 {
				return invalid("shape %v has two -1", want)
			}
			infer = i
			shape[i] = 1
		case d == 0 && !o.allowZero:
			if i >= len(x.shape) {
				return invalid("shape %v copies dimension %d of %v", want, i, x.shape)
			}
			shape[i] = x.shape[i]
		case d < 0:
			return invalid("shape %v", want)
		default:
			shape[i] = d
		}
	}
	n, err := checkedNumel(shape)
	if err != nil {
		return invalid("%v", err)
	}
	total := x.size()
	if infer >= 0 {
		if n == 0 || total%n != 0 {
			return invalid("cannot reshape %v to %v", x.shape, want)
		}
		shape[infer] = total / n
		n = total
	}
	if n != total {
		return invalid("cannot reshape %v to %v", x.shape, want)
	}
	out[0].shape = shape
	return nil
}

func (o *copyOp) inferAxes(in, out []*tensor) error {
	x := in[0]
	axes := o.axes
	if o.axesInput && len(in) > 1 && in[1] != nil {
		if !in[1].konst {
			return unsupported("axes computed at run time")
		}
		var err error
		if axes, err = in[1].ints(); err != nil {
			return invalid("axes: %v", err)
		}
	}
	rank := len(x.shape)
	if o.kind == kindUnsqueeze {
		rank += len(axes)
	}
	mark := make([]bool, rank)
	for _, a := range axes {
		ax, err := normAxis(a, rank)
		if err != nil || mark[ax] {
			return invalid("axes %v for rank %d", axes, rank)
		}
		mark[ax] = true
	}
	var shape []int
	if o.kind == kindSqueeze {
		for i, d := range x.shape {
			switch {
			case axes == nil && d == 1:
			case mark[i] && d != 1:
				return invalid("cannot squeeze dimension %d of %v", i, x.shape)
			case !mark[i]:
				shape = append(shape, d)
			}
		}
	} else {
		src := x.shape
		for i := range rank {
			if mark[i] {
				shape = append(shape, 1)
			} else {
				shape = append(shape, src[0])
				src = src[1:]
			}
		}
	}
	out[0].shape = shape
	return nil
}

func (o *copyOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	x, y := in[0], out[0]
	return runFunc(func(*kernels.Pool) { copyData(y, x) }), nil
}

// copyData copies src's elements into dst (same dtype and size).
func copyData(dst, src *tensor) {
	copy(dst.f, src.f)
	copy(dst.i, src.i)
	copy(dst.u8, src.u8)
}

// transposeOp is Transpose.
type transposeOp struct{ perm []int }

func newTranspose(a *attrs, n *onnxpb.Node, _ int64) (op, error) {
	return &transposeOp{perm: a.ints("perm", nil)}, checkIO(n, 1, 1)
}

func (o *transposeOp) permFor(rank int) ([]int, error) {
	perm := o.perm
	if perm == nil {
		perm = make([]int, rank)
		for i := range perm {
			perm[i] = rank - 1 - i
		}
	}
	if len(perm) != rank {
		return nil, invalid("perm %v for rank %d", perm, rank)
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank || seen[p] {
			return nil, invalid("perm %v is not a permutation", perm)
		}
		seen[p] = true
	}
	return perm, nil
}

func (o *transposeOp) infer(in, out []*tensor) error {
	x := in[0]
	perm, err := o.permFor(len(x.shape))
	if err != nil {
		return err
	}
	out[0].dt = x.dt
	out[0].shape = make([]int, len(perm))
	for i, p := range perm {
		out[0].shape[i] = x.shape[p]
	}
	return nil
}

func (o *transposeOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	x, y := in[0], out[0]
	perm, err := o.permFor(len(x.shape))
	if err != nil {
		return nil, err
	}
	// Input strides in output order.
	rank := len(perm)
	inStride := make([]int, rank)
	acc := 1
	for i := rank - 1; i >= 0; i-- {
		inStride[i] = acc
		acc *= x.shape[i]
	}
	st := make([]int, rank)
	for i, p := range perm {
		st[i] = inStride[p]
	}
	dims := y.shape
	idx := make([]int, rank)
	return runFunc(func(*kernels.Pool) {
		switch x.dt {
		case onnxpb.Float:
			permute(y.f, x.f, dims, st, idx)
		case onnxpb.Int64:
			permute(y.i, x.i, dims, st, idx)
		default:
			permute(y.u8, x.u8, dims, st, idx)
		}
	}), nil
}

// permute writes dst in order, reading src at the strides st per output
// dimension.
func permute[T any](dst, src []T, dims, st, idx []int) {
	if len(dst) == 0 {
		return
	}
	if len(dims) == 0 {
		dst[0] = src[0]
		return
	}
	clear(idx)
	last := len(dims) - 1
	inner, innerStride := dims[last], st[last]
	off := 0
	for o := 0; o < len(dst); o += inner {
		row := dst[o : o+inner]
		for i := range row {
			row[i] = src[off+i*innerStride]
		}
		k := last - 1
		for ; k >= 0; k-- {
			idx[k]++
			off += st[k]
			if idx[k] < dims[k] {
				break
			}
			off -= st[k] * dims[k]
			idx[k] = 0
		}
	}
}

// concatOp is Concat.
type concatOp struct{ axis int }

func newConcat(a *attrs, n *onnxpb.Node, _ int64) (op, error) {
	if !a.has("axis") {
		return nil, invalid("axis is required")
	}
	o := &concatOp{axis: int(a.int("axis", 0))}
	if err := wantInputs(n, 1, 1<<16); err != nil {
		return nil, err
	}
	return o, wantOutputs(n, 1)
}

func (o *concatOp) infer(in, out []*tensor) error {
	first := in[0]
	axis, err := normAxis(o.axis, len(first.shape))
	if err != nil {
		return invalid("%v", err)
	}
	shape := slices.Clone(first.shape)
	shape[axis] = 0
	for i, t := range in {
		if t == nil {
			return invalid("input %d is missing", i)
		}
		if t.dt != first.dt || len(t.shape) != len(shape) {
			return invalid("input %d is %v%v, first is %v%v", i, t.dt, t.shape, first.dt, first.shape)
		}
		for d := range shape {
			if d != axis && t.shape[d] != shape[d] {
				return invalid("input %d shape %v differs from %v off axis %d", i, t.shape, first.shape, axis)
			}
		}
		shape[axis] += t.shape[axis]
	}
	out[0].dt, out[0].shape = first.dt, shape
	return nil
}

func (o *concatOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	y := out[0]
	axis, _ := normAxis(o.axis, len(y.shape))
	outer := numel(y.shape[:axis])
	inner := numel(y.shape[axis+1:])
	return runFunc(func(*kernels.Pool) {
		off := 0
		for _, t := range in {
			blk := t.shape[axis] * inner
			rowOut := y.shape[axis] * inner
			for r := range outer {
				switch y.dt {
				case onnxpb.Float:
					copy(y.f[r*rowOut+off:], t.f[r*blk:(r+1)*blk])
				case onnxpb.Int64:
					copy(y.i[r*rowOut+off:], t.i[r*blk:(r+1)*blk])
				default:
					copy(y.u8[r*rowOut+off:], t.u8[r*blk:(r+1)*blk])
				}
			}
			off += blk
		}
	}), nil
}

// shapeOp is Shape: its output is known at plan time.
type shapeOp struct {
	start, end int
	hasEnd     bool
}

func newShape(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	o := &shapeOp{}
	if opset >= 15 {
		o.start = int(a.int("start", 0))
		o.hasEnd = a.has("end")
		o.end = int(a.int("end", 0))
	}
	return o, checkIO(n, 1, 1)
}

func (o *shapeOp) infer(in, out []*tensor) error {
	sh := in[0].shape
	r := len(sh)
	clampAxis := func(v int) int {
		if v < 0 {
			v += r
		}
		return min(max(v, 0), r)
	}
	start, end := clampAxis(o.start), r
	if o.hasEnd {
		end = clampAxis(o.end)
	}
	t := out[0]
	t.dt, t.konst = onnxpb.Int64, true
	for _, d := range sh[start:max(start, end)] {
		t.i = append(t.i, int64(d))
	}
	t.shape = []int{len(t.i)}
	return nil
}

func (o *shapeOp) bind(*bindEnv, []*tensor, []*tensor) (step, error) {
	return runFunc(func(*kernels.Pool) {}), nil
}

// gatherOp is Gather with constant indices.
type gatherOp struct{ axis int }

func newGather(a *attrs, n *onnxpb.Node, _ int64) (op, error) {
	return &gatherOp{axis: int(a.int("axis", 0))}, checkIO(n, 2, 2)
}

func (o *gatherOp) infer(in, out []*tensor) error {
	x, idx := in[0], in[1]
	if idx == nil || !idx.konst {
		return unsupported("indices computed at run time")
	}
	axis, err := normAxis(o.axis, len(x.shape))
	if err != nil {
		return invalid("%v", err)
	}
	ids, err := idx.ints()
	if err != nil {
		return invalid("indices: %v", err)
	}
	for _, v := range ids {
		if v < -x.shape[axis] || v >= x.shape[axis] {
			return invalid("index %d out of range for dimension %d of %v", v, axis, x.shape)
		}
	}
	shape := append(append(slices.Clone(x.shape[:axis]), idx.shape...), x.shape[axis+1:]...)
	out[0].dt, out[0].shape = x.dt, shape
	return nil
}

func (o *gatherOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	x, y := in[0], out[0]
	axis, _ := normAxis(o.axis, len(x.shape))
	ids, _ := in[1].ints()
	dim := x.shape[axis]
	for i, v := range ids {
		if v < 0 {
			ids[i] = v + dim
		}
	}
	outer, inner := numel(x.shape[:axis]), numel(x.shape[axis+1:])
	return runFunc(func(*kernels.Pool) {
		o := 0
		for r := range outer {
			for _, id := range ids {
				src := (r*dim + id) * inner
				switch x.dt {
				case onnxpb.Float:
					copy(y.f[o:o+inner], x.f[src:])
				case onnxpb.Int64:
					copy(y.i[o:o+inner], x.i[src:])
				default:
					copy(y.u8[o:o+inner], x.u8[src:])
				}
				o += inner
			}
		}
	}), nil
}

// castOp is Cast between float, int64 and uint8.
type castOp struct{ to dtype }

func newCast(a *attrs, n *onnxpb.Node, _ int64) (op, error) {
	a.int("saturate", 1) // float8 targets only
	o := &castOp{to: dtype(a.int("to", 0))}
	switch o.to {
	case onnxpb.Float, onnxpb.Int64, onnxpb.Uint8:
	default:
		return nil, unsupported("cast to %v", o.to)
	}
	return o, checkIO(n, 1, 1)
}

func (o *castOp) infer(in, out []*tensor) error {
	switch in[0].dt {
	case onnxpb.Float, onnxpb.Int64, onnxpb.Uint8:
	default:
		return unsupported("cast from %v", in[0].dt)
	}
	out[0].dt, out[0].shape = o.to, in[0].shape
	return nil
}

func (o *castOp) bind(_ *bindEnv, in, out []*tensor) (step, error) {
	x, y := in[0], out[0]
	return runFunc(func(*kernels.Pool) { castData(y, x) }), nil
}

// castData converts src's elements into dst's type. Float to integer
// truncates toward zero; out-of-range values wrap (ONNX leaves them
// undefined).
func castData(dst, src *tensor) {
	n := src.size()
	for i := range n {
		var f float64
		var v int64
		switch src.dt {
		case onnxpb.Float:
			f = float64(src.f[i])
			v = int64(f)
			if f != f || f > 9.2e18 || f < -9.2e18 {
				v = 0
			}
		case onnxpb.Int64:
			v = src.i[i]
			f = float64(v)
		default:
			v = int64(src.u8[i])
			f = float64(v)
		}
		switch dst.dt {
		case onnxpb.Float:
			dst.f[i] = float32(f)
		case onnxpb.Int64:
			dst.i[i] = v
		default:
			dst.u8[i] = uint8(v)
		}
	}
}

// constantOp is Constant: its output is known at plan time.
type constantOp struct{ value *tensor }

func newConstant(a *attrs, n *onnxpb.Node, _ int64) (op, error) {
	var t *tensor
	var err error
	switch {
	case a.has("value"):
		if p := a.tensor("value"); p != nil {
			t, err = fromProto(p)
		}
	case a.has("value_float"):
		t = &tensor{dt: onnxpb.Float, shape: []int{}, f: []float32{a.float("value_float", 0)}}
	case a.has("value_floats"):
		f := a.floats("value_floats")
		t = &tensor{dt: onnxpb.Float, shape: []int{len(f)}, f: slices.Clone(f)}
	case a.has("value_int"):
		t = &tensor{dt: onnxpb.Int64, shape: []int{}, i: []int64{a.int("value_int", 0)}}
	case a.has("value_ints"):
		at, _ := n.Attr("value_ints")
		a.read["value_ints"] = true
		if at.Type != onnxpb.AttrInts {
			return nil, invalid("value_ints is %v", at.Type)
		}
		t = &tensor{dt: onnxpb.Int64, shape: []int{len(at.Ints)}, i: slices.Clone(at.Ints)}
	default:
		return nil, unsupported("Constant without a value, value_float(s) or value_int(s) attribute")
	}
	if a.err != nil {
		return nil, a.err
	}
	if err != nil {
		return nil, asInvalid(err)
	}
	if len(a.n.Attrs) != 1 {
		return nil, invalid("Constant needs exactly one attribute")
	}
	if err := wantInputs(n, 0, 0); err != nil {
		return nil, err
	}
	t.konst = true
	return &constantOp{value: t}, wantOutputs(n, 1)
}

func (o *constantOp) infer(_, out []*tensor) error {
	*out[0] = *o.value
	return nil
}

func (o *constantOp) bind(*bindEnv, []*tensor, []*tensor) (step, error) {
	return runFunc(func(*kernels.Pool) {}), nil
}
