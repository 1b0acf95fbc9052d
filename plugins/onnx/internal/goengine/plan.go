package goengine

import (
	"fmt"
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// plan is the graph specialized to one set of concrete input shapes:
// every value's shape, the folded constants, the arena layout and the
// bound steps.
type plan struct {
	// key holds the input shapes the plan was built for, concatenated.
	key   []int
	vals  []*tensor
	steps []boundStep
	// offsets holds each arena value's offset; -1 for values outside it.
	offsets   []int
	arenaSize int
	inputs    []*tensor
	outputs   []*tensor
	// budget is what planning may still allocate outside the arena, in
	// bytes: inputs, folded constants, non-float values.
	budget int64
	// split, when not nil, runs stretches of the steps sample by sample
	// (separable.go).
	split *batchSplit
}

// allocate gives t storage, charging the plan's budget.
func (p *plan) allocate(t *tensor) error {
	size := int64(t.size()) * int64(max(elemSize(t.dt), 1))
	if size > p.budget {
		return fmt.Errorf("%w: tensor %v%v needs %d bytes, over the memory budget (option %s)", errUnsupported, t.dt, t.shape, size, OptMaxArenaMB)
	}
	p.budget -= size
	t.alloc()
	return nil
}

func elemSize(dt dtype) int {
	switch dt {
	case onnxpb.Float:
		return 4
	case onnxpb.Int64:
		return 8
	default:
		return 1
	}
}

type boundStep struct {
	node *node
	step step
}

// arenaAlign keeps each arena tensor on a 64-byte boundary.
const arenaAlign = 16

// inferPlan runs shape inference and constant folding for the given
// input shapes. It does not allocate the arena or bind steps.
func inferPlan(g *graph, env *bindEnv, pool *kernels.Pool, inShapes [][]int, budget int64) (*plan, error) {
	p := &plan{vals: make([]*tensor, len(g.values)), budget: budget}
	for id, v := range g.values {
		if v.konst != nil {
			p.vals[id] = v.konst
		}
	}
	for k, id := range g.inputs {
		t := &tensor{dt: onnxpb.DataType(g.values[id].info.DType), shape: inShapes[k]}
		if _, err := checkedNumel(t.shape); err != nil {
			return nil, invalid("input %q: %v", g.values[id].name, err)
		}
		// Inputs own their buffers: Run copies into them.
		if err := p.allocate(t); err != nil {
			return nil, fmt.Errorf("input %q: %w", g.values[id].name, err)
		}
		p.vals[id] = t
		p.inputs = append(p.inputs, t)
		p.key = append(p.key, t.shape...)
	}
	for _, n := range g.nodes {
		if n.dead {
			continue
		}
		if err := p.inferNode(n, env, pool); err != nil {
			return nil, &NodeError{Node: n.name, Op: n.opType, Err: err}
		}
	}
	for _, id := range g.outputs {
		p.outputs = append(p.outputs, p.vals[id])
	}
	return p, nil
}

func (p *plan) tensors(ids []int) []*tensor {
	out := make([]*tensor, len(ids))
	for i, id := range ids {
		if id != absent {
			out[i] = p.vals[id]
		}
	}
	return out
}

func (p *plan) inferNode(n *node, env *bindEnv, pool *kernels.Pool) error {
	in := p.tensors(n.in)
	out := make([]*tensor, len(n.out))
	for i, id := range n.out {
		if id != absent {
			out[i] = &tensor{}
			p.vals[id] = out[i]
		}
	}
	if err := n.op.infer(in, out); err != nil {
		return err
	}
	allOut, allIn := true, true
	for _, t := range out {
		if t != nil {
			if _, err := checkedNumel(t.shape); err != nil {
				return invalid("output: %v", err)
			}
			allOut = allOut && t.konst
		}
	}
	for _, t := range in {
		allIn = allIn && (t == nil || t.konst)
	}
	if allOut || !allIn {
		return nil
	}
	// Every input is known: compute the outputs now.
	for _, t := range out {
		if t != nil {
			if err := p.allocate(t); err != nil {
				return err
			}
			t.konst = true
		}
	}
	s, err := n.op.bind(env, in, out)
	if err != nil {
		return err
	}
	s.run(pool)
	if f, ok := s.(failer); ok && f.failed() != nil {
		return invalid("%v", f.failed())
	}
	return nil
}

// layout finds the steps to run and places the values they compute.
func (p *plan) layout(g *graph) error {
	p.schedule(g)
	return p.place(g, nil)
}

// schedule finds the steps to run: the nodes whose outputs are needed,
// backwards from the graph outputs, in graph order. It binds none.
func (p *plan) schedule(g *graph) {
	needed := make([]bool, len(g.values))
	for _, id := range g.outputs {
		needed[id] = true
	}
	var live []*node
	for i := len(g.nodes) - 1; i >= 0; i-- {
		n := g.nodes[i]
		if n.dead || p.folded(n) {
			continue
		}
		use := false
		for _, id := range n.out {
			use = use || (id != absent && needed[id])
		}
		if !use {
			continue
		}
		live = append(live, n)
		for _, id := range n.in {
			if id != absent {
				needed[id] = true
			}
		}
	}
	slices.Reverse(live)
	p.steps = make([]boundStep, len(live))
	for i, n := range live {
		p.steps[i].node = n
	}
}

// place assigns arena offsets to the float values the steps compute
// (greedy by size over lifetimes) and gives other computed values their
// own storage. The steps of a split segment (segs, run sample by sample)
// read every sample of their inputs until the segment's last step and
// write every sample of their outputs from its first, so these values
// live over the whole segment.
func (p *plan) place(g *graph, segs []segment) error {
	// Lifetimes in step indices: defined at its producer's step, used
	// until its last consumer's; graph outputs live to the end.
	def := make([]int, len(g.values))
	last := make([]int, len(g.values))
	for i := range def {
		def[i], last[i] = -1, -2
	}
	for s, st := range p.steps {
		n := st.node
		for _, id := range n.out {
			if id != absent {
				def[id], last[id] = s, s
			}
		}
		for _, id := range n.in {
			if id != absent && def[id] >= 0 {
				last[id] = s
			}
		}
	}
	for _, id := range g.outputs {
		if def[id] >= 0 {
			last[id] = len(p.steps)
		}
	}
	for _, sg := range segs {
		if !sg.split {
			continue
		}
		for id := range def {
			switch {
			case def[id] < sg.lo && last[id] >= sg.lo:
				last[id] = max(last[id], sg.hi-1)
			case def[id] >= sg.lo && def[id] < sg.hi && last[id] >= sg.hi:
				def[id] = sg.lo
			}
		}
	}
	var cands []int
	for id := range g.values {
		if def[id] < 0 {
			continue
		}
		if t := p.vals[id]; t.dt == onnxpb.Float {
			cands = append(cands, id)
		} else if err := p.allocate(t); err != nil {
			return err
		}
	}
	slices.SortStableFunc(cands, func(a, b int) int { return p.vals[b].size() - p.vals[a].size() })
	p.offsets = make([]int, len(g.values))
	for i := range p.offsets {
		p.offsets[i] = -1
	}
	type placed struct{ off, end, def, last int }
	var done []placed
	for _, id := range cands {
		size := (p.vals[id].size() + arenaAlign - 1) / arenaAlign * arenaAlign
		var clash []placed
		for _, q := range done {
			if q.def <= last[id] && def[id] <= q.last {
				clash = append(clash, q)
			}
		}
		slices.SortFunc(clash, func(a, b placed) int { return a.off - b.off })
		off := 0
		for _, q := range clash {
			if off+size <= q.off {
				break
			}
			off = max(off, q.end)
		}
		p.offsets[id] = off
		done = append(done, placed{off: off, end: off + size, def: def[id], last: last[id]})
		p.arenaSize = max(p.arenaSize, off+size)
	}
	return nil
}

// folded reports whether all of n's outputs are constants of this plan.
func (p *plan) folded(n *node) bool {
	for _, id := range n.out {
		if id != absent && !p.vals[id].konst {
			return false
		}
	}
	return true
}

// bind points the arena values into arena and binds every step.
func (p *plan) bind(env *bindEnv, arena []float32) error {
	for id, off := range p.offsets {
		if off >= 0 {
			t := p.vals[id]
			t.f = arena[off : off+t.size() : off+t.size()]
		}
	}
	for i := range p.steps {
		n := p.steps[i].node
		s, err := n.op.bind(env, p.tensors(n.in), p.tensors(n.out))
		if err != nil {
			return &NodeError{Node: n.name, Op: n.opType, Err: err}
		}
		p.steps[i].step = s
	}
	return nil
}

// arenaBytes is the arena size in bytes.
func (p *plan) arenaBytes() int64 { return int64(p.arenaSize) * 4 }

func (p *plan) String() string {
	return fmt.Sprintf("plan%v: %d steps, arena %d floats", p.key, len(p.steps), p.arenaSize)
}
