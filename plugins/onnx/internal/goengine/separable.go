package goengine

import (
	"context"
	"fmt"
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// A plan for a batch of n samples runs its steps layer by layer: each
// step over all n samples before the next. Where one sample's activations
// fit in the core's cache and n samples' do not, the next step reads them
// back from memory. A batch split runs stretches of such steps one sample
// at a time on a plan for batch 1 with its own arena, so that a step reads
// what the step before it has just written; the steps whose weights
// outweigh one sample's activations (late convolutions, Gemm) still run
// on the whole batch, reading their weights once for all samples. Only steps that treat
// dimension 0 independently are split (sampleSeparable), so the result
// is the same, to the bit, as the whole batch's.

// batchSplit is a plan's split: its segments, each run whole or sample by
// sample on sub.
type batchSplit struct {
	n     int
	sub   *plan
	arena []float32
	segs  []segment
}

// segment is the steps [lo, hi) of a plan. A split segment copies each
// sample's slice of its inputs into the plan for batch 1 (in), runs the
// steps there and copies the slices of its outputs back (out).
type segment struct {
	lo, hi  int
	split   bool
	in, out []valuePair
}

// valuePair is one value in the batch plan (whole) and in the plan for
// batch 1 (one).
type valuePair struct{ whole, one *tensor }

// run runs the plan's steps, checking ctx before each.
func (p *plan) run(ctx context.Context, pool *kernels.Pool) error {
	if p.split == nil {
		return runSteps(ctx, pool, p.steps)
	}
	bs := p.split
	for i := range bs.segs {
		sg := &bs.segs[i]
		if !sg.split {
			if err := runSteps(ctx, pool, p.steps[sg.lo:sg.hi]); err != nil {
				return err
			}
			continue
		}
		for k := range bs.n {
			for _, v := range sg.in {
				copySample(v.one, v.whole, k, false)
			}
			if err := runSteps(ctx, pool, bs.sub.steps[sg.lo:sg.hi]); err != nil {
				return err
			}
			for _, v := range sg.out {
				copySample(v.one, v.whole, k, true)
			}
		}
	}
	return nil
}

func runSteps(ctx context.Context, pool *kernels.Pool, steps []boundStep) error {
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		st.step.run(pool)
		if f, ok := st.step.(failer); ok {
			if err := f.failed(); err != nil {
				return fmt.Errorf("node %s (%s): %w", st.node.name, st.node.opType, err)
			}
		}
	}
	return nil
}

// copySample copies sample k of whole into one (back: one into sample k
// of whole).
func copySample(one, whole *tensor, k int, back bool) {
	f, i, u8 := one.f, one.i, one.u8
	wf := whole.f[min(k*len(f), len(whole.f)):][:len(f)]
	wi := whole.i[min(k*len(i), len(whole.i)):][:len(i)]
	wu := whole.u8[min(k*len(u8), len(whole.u8)):][:len(u8)]
	if back {
		f, wf, i, wi, u8, wu = wf, f, wi, i, wu, u8
	}
	copy(f, wf)
	copy(i, wi)
	copy(u8, wu)
}

// batchOf returns the batch of input shapes: the common leading
// dimension of every input, or 0 when they have none.
func batchOf(shapes [][]int) int {
	n := 0
	for i, sh := range shapes {
		if len(sh) == 0 || (i > 0 && sh[0] != n) {
			return 0
		}
		n = sh[0]
	}
	return n
}

// newBatchSplit plans the split of p (scheduled, not yet placed: its
// placement must know the segments): a plan for batch 1 with its own
// arena of at most budget bytes, the steps that are sample-separable, and
// the segments to run sample by sample. It returns nil when nothing is
// worth splitting (or the graph is not separable anywhere, or the plan
// for batch 1 cannot be made).
func newBatchSplit(g *graph, env *bindEnv, pool *kernels.Pool, p *plan, budget int64) *batchSplit {
	sub, n := planOne(g, env, pool, p, budget)
	if sub == nil {
		return nil
	}
	sep := separableSteps(p, sub, n)
	gains, weighted := make([]bool, len(sep)), make([]bool, len(sep))
	for i, st := range sub.steps {
		act, w := stepBytes(st.node, sub)
		gains[i], weighted[i] = sep[i] && act >= w, w > 0
	}
	segs := chooseSegments(gains, weighted)
	if !slices.ContainsFunc(segs, func(s segment) bool { return s.split }) {
		return nil
	}
	arena := make([]float32, sub.arenaSize)
	if sub.bind(env, arena) != nil {
		return nil
	}
	for i := range segs {
		if segs[i].split {
			segs[i].in, segs[i].out = segmentIO(g, p, sub, segs[i].lo, segs[i].hi)
		}
	}
	return &batchSplit{n: n, sub: sub, arena: arena, segs: segs}
}

// segments returns the split's segments; none for a nil split.
func (bs *batchSplit) segments() []segment {
	if bs == nil {
		return nil
	}
	return bs.segs
}

// planOne plans, unbound, p's graph for batch 1: the inputs' dimension
// 0 set to 1. It returns nil unless every input of p has the same
// dimension 0, n > 1, and the plan for batch 1 runs the same steps.
func planOne(g *graph, env *bindEnv, pool *kernels.Pool, p *plan, budget int64) (*plan, int) {
	var shapes [][]int
	for _, t := range p.inputs {
		shapes = append(shapes, t.shape)
	}
	n := batchOf(shapes)
	if n < 2 {
		return nil, 0
	}
	one := make([][]int, len(shapes))
	for i, sh := range shapes {
		one[i] = append([]int{1}, sh[1:]...)
	}
	sub, err := inferPlan(g, env, pool, one, budget)
	if err != nil || sub.layout(g) != nil || sub.arenaBytes() > budget || len(sub.steps) != len(p.steps) {
		return nil, 0
	}
	for i := range p.steps {
		if p.steps[i].node != sub.steps[i].node {
			return nil, 0
		}
	}
	return sub, n
}

// separableSteps reports for each step of p whether it is
// sample-separable (sampleSeparable), one being p's plan for batch 1.
func separableSteps(p, one *plan, batch int) []bool {
	ok := make([]bool, len(p.steps))
	for i := range p.steps {
		ok[i] = sampleSeparable(p.steps[i].node, p, one, batch)
	}
	return ok
}

// chooseSegments cuts the steps into segments: each run of two or more
// steps that gain from running sample by sample (gains: separable, and
// one sample's activations outweigh the step's constants) is split if
// one of its steps has weights (weighted); the rest runs whole. A step
// alone finds nothing in cache that the whole batch would not, and a run
// of weightless steps (pooling, reshapes) costs about the same either
// way.
func chooseSegments(gains, weighted []bool) []segment {
	var segs []segment
	add := func(lo, hi int, split bool) {
		if k := len(segs) - 1; k >= 0 && !segs[k].split && !split {
			segs[k].hi = hi
			return
		}
		segs = append(segs, segment{lo: lo, hi: hi, split: split})
	}
	for i := 0; i < len(gains); {
		j := i
		for j < len(gains) && gains[j] {
			j++
		}
		split := j-i >= 2 && slices.Contains(weighted[i:j], true)
		if j == i { // a step that does not gain runs whole
			j++
		}
		add(i, j, split)
		i = j
	}
	return segs
}

// stepBytes returns the bytes of one sample's activations a step reads
// and writes (one being the plan for batch 1) and of its float constants
// (weights). A step whose activations are at least its weights gains
// from finding its input in cache more than it loses reading its weights
// once per sample.
func stepBytes(n *node, one *plan) (act, weights int64) {
	for _, ids := range [][]int{n.in, n.out} {
		for _, id := range ids {
			if id == absent {
				continue
			}
			t := one.vals[id]
			b := int64(t.size()) * int64(elemSize(t.dt))
			switch {
			case !t.konst:
				act += b
			case t.dt == onnxpb.Float:
				weights += b
			}
		}
	}
	return act, weights
}

// segmentIO lists the values a split segment reads from before it and
// those it defines that later steps or the graph's outputs read.
func segmentIO(g *graph, p, one *plan, lo, hi int) (in, out []valuePair) {
	defined := map[int]bool{}
	seen := map[int]bool{}
	for _, st := range p.steps[lo:hi] {
		for _, id := range st.node.in {
			if id != absent && !defined[id] && !seen[id] && !p.vals[id].konst {
				seen[id] = true
				in = append(in, valuePair{p.vals[id], one.vals[id]})
			}
		}
		for _, id := range st.node.out {
			if id != absent {
				defined[id] = true
			}
		}
	}
	later := map[int]bool{}
	for _, id := range g.outputs {
		later[id] = true
	}
	for _, st := range p.steps[hi:] {
		for _, id := range st.node.in {
			if id != absent {
				later[id] = true
			}
		}
	}
	for _, st := range p.steps[lo:hi] {
		for _, id := range st.node.out {
			if id != absent && later[id] {
				out = append(out, valuePair{p.vals[id], one.vals[id]})
			}
		}
	}
	return in, out
}

// sampleSeparable reports whether node n computes sample k of its
// outputs from sample k of its inputs alone, the same as at batch 1:
// p is the plan for batch n, one the plan for batch 1. Every input is a
// constant of both plans or a per-sample value (batched), every output
// is batched, and the operator treats dimension 0 independently (an
// allowlist; anything else is not separable). Gemm and MatMul are not
// split: their kernels pick their path by the number of rows, so a
// sample alone could round differently, and their weights favour the
// whole batch.
func sampleSeparable(nd *node, p, one *plan, batch int) bool {
	for _, id := range nd.out {
		if id != absent && !batched(p.vals[id], one.vals[id], batch) {
			return false
		}
	}
	var ranks []int // of the batched inputs
	for _, id := range nd.in {
		if id == absent {
			continue
		}
		w, o := p.vals[id], one.vals[id]
		switch {
		case w.konst && o.konst:
		case batched(w, o, batch):
			ranks = append(ranks, len(w.shape))
		default:
			return false
		}
	}
	rank := len(p.vals[nd.out[0]].shape)
	switch op := nd.op.(type) {
	case *convOp, *actOp, *batchNormOp, *poolOp, globalAvgPoolOp, *padOp, *copyOp:
		// Per sample by construction; a shape op that kept dimension 0
		// (batched output) keeps each sample's elements together.
		return true
	case *binaryOp:
		// Each batched input spans the output's dimension 0; a constant
		// must not vary along it.
		for _, id := range nd.in {
			if w := p.vals[id]; w.konst && len(w.shape) == rank && w.shape[0] != 1 {
				return false
			}
		}
		return !slices.ContainsFunc(ranks, func(r int) bool { return r != rank })
	case *concatOp:
		axis, err := normAxis(op.axis, rank)
		return err == nil && axis != 0 && len(ranks) == len(nd.in)
	case *transposeOp:
		perm, err := op.permFor(rank)
		return err == nil && perm[0] == 0
	case *softmaxOp:
		axis, err := normAxis(op.axis, rank)
		return err == nil && axis != 0
	case *argMaxOp:
		axis, err := normAxis(op.axis, len(p.vals[nd.in[0]].shape))
		return err == nil && axis != 0
	}
	return false
}

// batched reports whether a value holds one slice per sample: computed
// (not a constant), dimension 0 the batch in the batch plan (w) and 1 in
// the plan for batch 1 (o), the other dimensions equal.
func batched(w, o *tensor, batch int) bool {
	return !w.konst && !o.konst && w.dt == o.dt && len(w.shape) > 0 && len(w.shape) == len(o.shape) &&
		w.shape[0] == batch && o.shape[0] == 1 && slices.Equal(w.shape[1:], o.shape[1:])
}
