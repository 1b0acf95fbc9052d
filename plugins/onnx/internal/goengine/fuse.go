package goengine

import (
	"math"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// consumers counts, for each value, the live nodes reading it; graph
// outputs count as one more reader, so that a value the caller sees is
// never fused away.
func (g *graph) consumers() []int {
	c := make([]int, len(g.values))
	for _, n := range g.nodes {
		if n.dead {
			continue
		}
		for _, id := range n.in {
			if id != absent {
				c[id]++
			}
		}
	}
	for _, id := range g.outputs {
		c[id]++
	}
	return c
}

// producerOf returns the live node producing id as its first output and
// whether there is one.
func (g *graph) producerOf(id int) (*node, bool) {
	p := g.values[id].producer
	if p == absent || g.nodes[p].dead || g.nodes[p].out[0] != id {
		return nil, false
	}
	return g.nodes[p], true
}

// absorb makes fused take over the outputs of the node it swallowed. The
// value between them loses its only reader.
func (g *graph) absorb(fused, gone *node, uses []int) {
	uses[fused.out[0]]--
	fused.out[0] = gone.out[0]
	g.values[gone.out[0]].producer = fused.idx
	gone.dead = true
}

// addConst appends a constant value and returns its id.
func (g *graph) addConst(name string, t *tensor) int {
	g.values = append(g.values, &value{name: name, konst: t, producer: absent})
	return len(g.values) - 1
}

// foldBatchNorms folds each BatchNormalization that follows a Conv with
// constant weights into the Conv's weights and bias.
func (g *graph) foldBatchNorms() {
	uses := g.consumers()
	for _, bn := range g.nodes {
		bo, ok := bn.op.(*batchNormOp)
		if !ok || bn.dead {
			continue
		}
		conv, ok := g.producerOf(bn.in[0])
		if !ok || uses[bn.in[0]] != 1 {
			continue
		}
		co, ok := conv.op.(*convOp)
		if !ok || co.residual || co.act.Kind != kernels.ActNone {
			continue
		}
		params := make([]*tensor, 5)
		okParams := true
		for i := 1; i < 5; i++ {
			id := bn.in[i]
			if id == absent || g.values[id].konst == nil || g.values[id].konst.dt != onnxpb.Float {
				okParams = false
				break
			}
			params[i] = g.values[id].konst
		}
		w := g.values[conv.in[1]].konst
		if !okParams || w == nil || w.dt != onnxpb.Float || len(w.shape) != 4 {
			continue
		}
		m := w.shape[0]
		if len(params[1].f) != m || len(params[2].f) != m || len(params[3].f) != m || len(params[4].f) != m {
			continue
		}
		var bias []float32
		if len(conv.in) > 2 && conv.in[2] != absent {
			b := g.values[conv.in[2]].konst
			if b == nil || len(b.f) != m {
				continue
			}
			bias = b.f
		}
		scale, shift := bnAffine(params, bo.eps)
		nw := &tensor{dt: onnxpb.Float, shape: w.shape, f: make([]float32, len(w.f)), konst: true}
		per := len(w.f) / m
		for o := range m {
			for k := range per {
				nw.f[o*per+k] = w.f[o*per+k] * scale[o]
			}
		}
		nb := &tensor{dt: onnxpb.Float, shape: []int{m}, f: make([]float32, m), konst: true}
		for o := range m {
			v := shift[o]
			if bias != nil {
				v += bias[o] * scale[o]
			}
			nb.f[o] = v
		}
		conv.in = []int{conv.in[0], g.addConst(bn.name+"/folded_w", nw), g.addConst(bn.name+"/folded_b", nb)}
		uses = append(uses, 1, 1)
		g.absorb(conv, bn, uses)
	}
}

// fuseActivations moves each Relu or constant-bound Clip that is the only
// reader of a Conv or Gemm output into that node.
func (g *graph) fuseActivations() {
	uses := g.consumers()
	for _, an := range g.nodes {
		ao, ok := an.op.(*actOp)
		if !ok || an.dead || uses[an.in[0]] != 1 {
			continue
		}
		act, ok := g.constActivation(ao, an)
		if !ok {
			continue
		}
		prod, ok := g.producerOf(an.in[0])
		if !ok {
			continue
		}
		switch po := prod.op.(type) {
		case *convOp:
			if po.act.Kind != kernels.ActNone {
				continue
			}
			po.act = act
		case *gemmOp:
			if po.act.Kind != kernels.ActNone {
				continue
			}
			po.act = act
		default:
			continue
		}
		g.absorb(prod, an, uses)
	}
}

// constActivation resolves an activation whose Clip bounds are constant.
func (g *graph) constActivation(ao *actOp, n *node) (kernels.Activation, bool) {
	in := make([]*tensor, len(n.in))
	for i, id := range n.in {
		if id == absent {
			continue
		}
		if i > 0 {
			k := g.values[id].konst
			if k == nil || k.dt != onnxpb.Float || len(k.f) != 1 {
				return kernels.Activation{}, false
			}
			in[i] = k
		}
	}
	act := ao.resolve(in)
	if act.Kind == kernels.ActClip && math.IsNaN(float64(act.Min)+float64(act.Max)) {
		return act, false
	}
	return act, true
}

// fuseResiduals fuses Add(conv(x), r) into the Conv as a residual input
// when r has exactly the Conv output's shape in both probe plans (shapes
// for free dimensions 1 and 2), so that no broadcasting Add is fused.
func (g *graph) fuseResiduals(probe1, probe2 *plan) {
	uses := g.consumers()
	same := func(a, b int) bool {
		return shapeEq(probe1.vals[a].shape, probe1.vals[b].shape) && shapeEq(probe2.vals[a].shape, probe2.vals[b].shape) &&
			probe1.vals[a].dt == onnxpb.Float && probe1.vals[b].dt == onnxpb.Float
	}
	for _, add := range g.nodes {
		bo, ok := add.op.(*binaryOp)
		if !ok || add.dead || bo.kind != binAdd || probe1.vals[add.out[0]] == nil {
			continue
		}
		// Prefer the Conv that runs later, so the other operand is ready.
		var best *node
		var res int
		for k := range 2 {
			id, other := add.in[k], add.in[1-k]
			conv, ok := g.producerOf(id)
			if !ok || uses[id] != 1 || probe1.vals[id].konst || probe1.vals[other].konst || !same(id, other) {
				continue
			}
			co, ok := conv.op.(*convOp)
			if !ok || co.residual || co.act.Kind != kernels.ActNone {
				continue
			}
			if best == nil || conv.idx > best.idx {
				best, res = conv, other
			}
		}
		if best == nil {
			continue
		}
		co := best.op.(*convOp)
		for len(best.in) < 3 {
			best.in = append(best.in, absent)
		}
		best.in = append(best.in, res)
		co.residual = true
		g.absorb(best, add, uses)
	}
	g.resort()
}

// resort restores a topological order of the live nodes after fusion
// gave nodes new inputs (Kahn's algorithm, linear in nodes and edges),
// and renumbers them.
func (g *graph) resort() {
	var live []*node
	for _, n := range g.nodes {
		if !n.dead {
			live = append(live, n)
		}
	}
	// waiting counts each node's inputs not yet computed; readers lists
	// the nodes reading each value.
	waiting := make([]int, len(live))
	readers := make([][]int, len(g.values))
	for i, n := range live {
		for _, id := range n.in {
			if id != absent && g.values[id].producer != absent {
				waiting[i]++
				readers[id] = append(readers[id], i)
			}
		}
	}
	var next []int
	order := kahn(waiting, func(i int) []int {
		next = next[:0]
		for _, id := range live[i].out {
			if id != absent {
				next = append(next, readers[id]...)
			}
		}
		return next
	})
	if len(order) != len(live) {
		return // cannot happen: fusion only adds inputs computed earlier
	}
	g.nodes = g.nodes[:0]
	for _, i := range order {
		n := live[i]
		n.idx = len(g.nodes)
		g.nodes = append(g.nodes, n)
		for _, id := range n.out {
			if id != absent {
				g.values[id].producer = n.idx
			}
		}
	}
}
