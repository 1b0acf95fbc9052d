package goengine

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// smallM is the largest row count that takes the dot-product path when the
// right operand is constant.
const smallM = 4

// gemmOp is Gemm (and MatMul with a constant 2-D right operand):
// Y = act(alpha·A'·B' + beta·C) with A' = transA ? Aᵀ : A and likewise B'.
type gemmOp struct {
	alpha, beta    float32
	transA, transB bool
	act            kernels.Activation
	// matmul marks a MatMul mapped here: A may have leading batch
	// dimensions, flattened into rows.
	matmul bool
	// packed caches B'ᵀ packed as the left operand of the transposed
	// product, for a constant B. Everything else a plan needs lives in
	// its step: plans share the op.
	packed *kernels.PackedA
}

func newGemm(a *attrs, n *onnxpb.Node, opset int64) (op, error) {
	o := &gemmOp{
		alpha:  a.float("alpha", 1),
		beta:   a.float("beta", 1),
		transA: a.int("transA", 0) != 0,
		transB: a.int("transB", 0) != 0,
	}
	lo := 3
	if opset >= 11 {
		lo = 2
	}
	return o, checkIO(n, lo, 3)
}

// dims returns M, K, N of the product.
func (o *gemmOp) dims(a, b *tensor) (m, k, n int) {
	if o.matmul {
		k = a.shape[len(a.shape)-1]
		return numel(a.shape) / max(k, 1), k, b.shape[1]
	}
	m, k = a.shape[0], a.shape[1]
	if o.transA {
		m, k = k, m
	}
	n = b.shape[1]
	if o.transB {
		n = b.shape[0]
	}
	return m, k, n
}

func (o *gemmOp) infer(in, out []*tensor) error {
	a, b := in[0], in[1]
	if b == nil {
		return invalid("B is missing")
	}
	if a.dt != onnxpb.Float || b.dt != onnxpb.Float {
		return unsupported("input types %v and %v", a.dt, b.dt)
	}
	if (!o.matmul && len(a.shape) != 2) || len(b.shape) != 2 {
		return invalid("operands %v and %v are not matrices", a.shape, b.shape)
	}
	m, k, n := o.dims(a, b)
	kb := b.shape[0]
	if o.transB {
		kb = b.shape[1]
	}
	if k != kb {
		return invalid("inner dimensions differ: A' is %dx%d, B' is %dx%d", m, k, kb, n)
	}
	shape := []int{m, n}
	if o.matmul {
		shape = append(append([]int{}, a.shape[:len(a.shape)-1]...), n)
	}
	if len(in) > 2 && in[2] != nil {
		c := in[2]
		if c.dt != onnxpb.Float {
			return invalid("C is %v", c.dt)
		}
		if bs, err := broadcastShape([]int{m, n}, c.shape); err != nil || !shapeEq(bs, []int{m, n}) {
			return invalid("C %v does not broadcast to %dx%d", c.shape, m, n)
		}
	}
	out[0].dt, out[0].shape = onnxpb.Float, shape
	return nil
}

func (o *gemmOp) bind(env *bindEnv, in, out []*tensor) (step, error) {
	a, b := in[0], in[1]
	m, k, n := o.dims(a, b)
	y := out[0].f
	ep := kernels.Epilogue{Alpha: o.alpha, Act: o.act}
	// C: a per-column vector becomes a bias; anything else is copied into
	// Y first and scaled by beta.
	var fillC func()
	if len(in) > 2 && in[2] != nil && o.beta != 0 {
		c := in[2]
		if numel(c.shape) == n && (len(c.shape) < 2 || c.shape[0] == 1) || numel(c.shape) == 1 {
			ep.Bias = make([]float32, n)
			for j := range ep.Bias {
				ep.Bias[j] = o.beta * c.f[j%len(c.f)]
			}
		} else {
			it := newBroadcast([]int{m, n}, []int{m, n}, c.shape)
			ep.Beta = o.beta
			fillC = func() {
				it.each(func(oo, _, bo, cnt, _, sb int) {
					for i := range cnt {
						y[oo+i] = c.f[bo+i*sb]
					}
				})
			}
		}
	}
	// A'ᵀ as a strided K×M matrix, and A' as M×K.
	aT := kernels.Mat{Data: a.f, RS: 1, CS: k}
	if o.transA {
		aT = kernels.Mat{Data: a.f, RS: m, CS: 1}
	}
	if b.konst {
		if m <= smallM && !o.transA {
			small := &kernels.SmallM{M: m, N: n, K: k, A: a.f, LDA: k, B: b.f, LDB: b.shape[1], TransposeB: o.transB, C: y, LDC: n, Ep: ep, G: env.gemm}
			return runFunc(func(pool *kernels.Pool) {
				if fillC != nil {
					fillC()
				}
				small.Run(pool)
			}), nil
		}
		if o.packed == nil {
			// B'ᵀ is N×K: B stored N×K when transposed, else K×N.
			bt := kernels.Mat{Data: b.f, RS: 1, CS: n}
			if o.transB {
				bt = kernels.RowMajor(b.f, k)
			}
			p := env.gemm.PackA(nil, bt, n, k)
			o.packed = &p
		}
		ep.BiasPerRow = true
		call := &kernels.GemmCall{M: n, N: m, K: k, Batch: 1, A: o.packed, B: &kernels.MatSource{M: aT},
			C: kernels.Mat{Data: y, RS: 1, CS: n}, Ep: ep}
		return runFunc(func(pool *kernels.Pool) {
			if fillC != nil {
				fillC()
			}
			env.gemm.Run(pool, call)
		}), nil
	}
	bm := kernels.RowMajor(b.f, n)
	if o.transB {
		bm = kernels.Mat{Data: b.f, RS: 1, CS: k}
	}
	call := &kernels.GemmCall{M: m, N: n, K: k, Batch: 1, B: &kernels.MatSource{M: bm}, C: kernels.RowMajor(y, n), Ep: ep}
	var pa kernels.PackedA
	return runFunc(func(pool *kernels.Pool) {
		if fillC != nil {
			fillC()
		}
		pa = env.gemm.PackA(pa.Data(), aT.T(), m, k)
		call.A = &pa
		env.gemm.Run(pool, call)
	}), nil
}

// matMulOp is MatMul with numpy semantics. A constant 2-D right operand
// runs as a Gemm; anything else runs one GEMM per batch item.
type matMulOp struct {
	asGemm *gemmOp
}

func newMatMul(_ *attrs, n *onnxpb.Node, _ int64) (op, error) {
	return &matMulOp{asGemm: &gemmOp{alpha: 1, matmul: true}}, checkIO(n, 2, 2)
}

// matmulShapes returns the broadcast batch shape and M, K, N, after
// promoting 1-D operands.
func matmulShapes(a, b []int) (batch []int, m, k, n int, err error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, 0, 0, 0, invalid("scalar operand")
	}
	if len(a) == 1 {
		a = []int{1, a[0]}
	}
	if len(b) == 1 {
		b = []int{b[0], 1}
	}
	m, k, n = a[len(a)-2], a[len(a)-1], b[len(b)-1]
	if b[len(b)-2] != k {
		return nil, 0, 0, 0, invalid("inner dimensions differ: %v and %v", a, b)
	}
	batch, err = broadcastShape(a[:len(a)-2], b[:len(b)-2])
	if err != nil {
		return nil, 0, 0, 0, invalid("%v", err)
	}
	return batch, m, k, n, nil
}

func (o *matMulOp) gemmPath(in []*tensor) bool {
	return in[1].konst && len(in[1].shape) == 2 && len(in[0].shape) >= 2
}

func (o *matMulOp) infer(in, out []*tensor) error {
	a, b := in[0], in[1]
	if a.dt != onnxpb.Float || b.dt != onnxpb.Float {
		return unsupported("input types %v and %v", a.dt, b.dt)
	}
	if o.gemmPath(in) {
		return o.asGemm.infer(in, out)
	}
	batch, m, _, n, err := matmulShapes(a.shape, b.shape)
	if err != nil {
		return err
	}
	shape := append([]int{}, batch...)
	if len(a.shape) > 1 {
		shape = append(shape, m)
	}
	if len(b.shape) > 1 {
		shape = append(shape, n)
	}
	out[0].dt, out[0].shape = onnxpb.Float, shape
	return nil
}

func (o *matMulOp) bind(env *bindEnv, in, out []*tensor) (step, error) {
	if o.gemmPath(in) {
		return o.asGemm.bind(env, in, out)
	}
	a, b := in[0], in[1]
	batch, m, k, n, err := matmulShapes(a.shape, b.shape)
	if err != nil {
		return nil, err
	}
	ab, bb := a.shape[:max(len(a.shape)-2, 0)], b.shape[:max(len(b.shape)-2, 0)]
	it := newBroadcast(batch, ab, bb)
	// Collect the (A, B) batch offsets once.
	var offs [][2]int
	it.each(func(_, ao, bo, cnt, sa, sb int) {
		for i := range cnt {
			offs = append(offs, [2]int{(ao + i*sa) * m * k, (bo + i*sb) * k * n})
		}
	})
	y := out[0].f
	var pa kernels.PackedA
	src := &kernels.MatSource{}
	call := &kernels.GemmCall{M: m, N: n, K: k, Batch: 1, A: &pa, B: src, Ep: kernels.Epilogue{Alpha: 1}}
	return runFunc(func(pool *kernels.Pool) {
		for bi, off := range offs {
			pa = env.gemm.PackA(pa.Data(), kernels.RowMajor(a.f[off[0]:], k), m, k)
			src.M = kernels.RowMajor(b.f[off[1]:], n)
			call.C = kernels.RowMajor(y[bi*m*n:], n)
			env.gemm.Run(pool, call)
		}
	}), nil
}
