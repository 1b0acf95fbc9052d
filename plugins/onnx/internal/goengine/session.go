package goengine

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// session is a loaded model: the graph, a worker pool, the plans made so
// far (one per distinct set of input shapes) and the arena they share.
type session struct {
	g       *graph
	cfg     config
	env     *bindEnv
	pool    *kernels.Pool
	inDesc  []engine.TensorDesc
	outDesc []engine.TensorDesc
	plans   []*plan
	arena   []float32
	shapes  [][]int // scratch for Run
	// mu serializes Run and Close: Close waits for a Run in flight.
	mu     sync.Mutex
	closed bool
}

// maxPlans bounds the plan cache; the oldest plan is dropped first.
const maxPlans = 16

var _ engine.Session = (*session)(nil)

func newSession(g *graph, cfg config) *session {
	s := &session{g: g, cfg: cfg, env: &bindEnv{gemm: cfg.gemm}, pool: kernels.NewPool(cfg.threads)}
	for _, id := range g.inputs {
		s.inDesc = append(s.inDesc, g.values[id].info)
	}
	s.shapes = make([][]int, len(g.inputs))
	return s
}

// prepare plans the model for free dimensions 1 (and MaxBatch), and finds
// the output descriptors by comparing the plans for free dimensions 1 and
// 2: dimensions that differ are free.
func (s *session) prepare(ctx context.Context) error {
	p1, err := s.planFor(s.freeShapes(1))
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// A model whose free dimensions cannot all be 2 (several free
	// dimensions that are not one batch) keeps the dimensions of batch 1.
	p2, err := inferPlan(s.g, s.env, s.pool, s.freeShapes(2), s.cfg.maxArena)
	if err != nil {
		p2 = p1
	}
	for i, id := range s.g.outputs {
		d := engine.TensorDesc{Name: s.g.values[id].name, DType: engine.DType(p1.outputs[i].dt)}
		a, b := p1.outputs[i].shape, p2.outputs[i].shape
		for k := range a {
			if k < len(b) && a[k] == b[k] {
				d.Shape = append(d.Shape, int64(a[k]))
			} else {
				d.Shape = append(d.Shape, -1)
			}
		}
		s.outDesc = append(s.outDesc, d)
	}
	if s.cfg.maxBatch > 1 {
		if _, err := s.planFor(s.freeShapes(s.cfg.maxBatch)); err != nil {
			return err
		}
	}
	return nil
}

// fuse runs the load-time fusions. Residual fusion needs shapes: it
// probes the graph with free dimensions 1 and 2 first.
func (s *session) fuse() error {
	s.g.foldBatchNorms()
	p1, err := inferPlan(s.g, s.env, s.pool, s.freeShapes(1), s.cfg.maxArena)
	if err != nil {
		return err
	}
	if p2, err := inferPlan(s.g, s.env, s.pool, s.freeShapes(2), s.cfg.maxArena); err == nil {
		s.g.fuseResiduals(p1, p2)
	}
	s.g.fuseActivations()
	return nil
}

// freeShapes returns the input shapes with every free dimension set to n.
func (s *session) freeShapes(n int) [][]int {
	out := make([][]int, len(s.inDesc))
	for i, d := range s.inDesc {
		for _, v := range d.Shape {
			if v < 0 {
				out[i] = append(out[i], n)
			} else {
				out[i] = append(out[i], int(v))
			}
		}
	}
	return out
}

// planFor returns the plan for the input shapes, making it if needed.
func (s *session) planFor(shapes [][]int) (*plan, error) {
	for _, p := range s.plans {
		if keyEq(p.key, shapes) {
			return p, nil
		}
	}
	p, err := inferPlan(s.g, s.env, s.pool, shapes, s.cfg.maxArena)
	if err != nil {
		return nil, err
	}
	p.schedule(s.g)
	var split *batchSplit
	if s.cfg.split {
		split = newBatchSplit(s.g, s.env, s.pool, p, s.cfg.maxArena)
	}
	if err := p.place(s.g, split.segments()); err != nil {
		return nil, err
	}
	if split != nil && p.arenaBytes()+split.sub.arenaBytes() > s.cfg.maxArena {
		split = nil // the whole batch's plan alone may still fit
	}
	if p.arenaBytes() > s.cfg.maxArena {
		return nil, fmt.Errorf("%w: activations for input shapes %v need %d MiB, over the %d MiB limit (option %s)",
			engine.ErrInput, shapes, p.arenaBytes()>>20, s.cfg.maxArena>>20, OptMaxArenaMB)
	}
	if p.arenaSize > len(s.arena) {
		// Plans bound to the old arena would keep it alive: drop them.
		s.arena = make([]float32, p.arenaSize)
		s.plans = s.plans[:0]
	}
	if err := p.bind(s.env, s.arena); err != nil {
		return nil, err
	}
	p.split = split
	if len(s.plans) == maxPlans {
		s.plans = slices.Delete(s.plans, 0, 1)
	}
	s.plans = append(s.plans, p)
	return p, nil
}

func keyEq(key []int, shapes [][]int) bool {
	i := 0
	for _, sh := range shapes {
		if i+len(sh) > len(key) || !slices.Equal(key[i:i+len(sh)], sh) {
			return false
		}
		i += len(sh)
	}
	return i == len(key)
}

// Inputs implements engine.Session.
func (s *session) Inputs() []engine.TensorDesc { return s.inDesc }

// Outputs implements engine.Session.
func (s *session) Outputs() []engine.TensorDesc { return s.outDesc }

// Run implements engine.Session.
func (s *session) Run(ctx context.Context, inputs, outputs []engine.Tensor) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return engine.ErrClosed
	}
	if len(inputs) != len(s.inDesc) || len(outputs) != len(s.outDesc) {
		return fmt.Errorf("%w: %d inputs and %d outputs, model has %d and %d",
			engine.ErrInput, len(inputs), len(outputs), len(s.inDesc), len(s.outDesc))
	}
	for i := range inputs {
		if err := s.inDesc[i].Check(inputs[i], s.cfg.maxBatch); err != nil {
			return err
		}
		sh := s.shapes[i][:0]
		for _, d := range inputs[i].Shape {
			sh = append(sh, int(d))
		}
		s.shapes[i] = sh
	}
	p, err := s.planFor(s.shapes)
	if err != nil {
		return err
	}
	for i := range inputs {
		decode(p.inputs[i], inputs[i].Data)
	}
	if err := p.run(ctx, s.pool); err != nil {
		return err
	}
	for i, t := range p.outputs {
		o := &outputs[i]
		o.Name, o.DType = s.outDesc[i].Name, s.outDesc[i].DType
		o.Shape = o.Shape[:0]
		for _, d := range t.shape {
			o.Shape = append(o.Shape, int64(d))
		}
		o.Data = encode(o.Data, t)
	}
	return nil
}

// decode copies little-endian input bytes into t's storage.
func decode(t *tensor, b []byte) {
	switch t.dt {
	case onnxpb.Float:
		for i := range t.f {
			t.f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case onnxpb.Int64:
		for i := range t.i {
			t.i[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	default:
		copy(t.u8, b)
	}
}

// encode writes t's elements as little-endian bytes, reusing dst.
func encode(dst []byte, t *tensor) []byte {
	var n int
	switch t.dt {
	case onnxpb.Float:
		n = 4 * len(t.f)
	case onnxpb.Int64:
		n = 8 * len(t.i)
	default:
		n = len(t.u8)
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	switch t.dt {
	case onnxpb.Float:
		for i, v := range t.f {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
		}
	case onnxpb.Int64:
		for i, v := range t.i {
			binary.LittleEndian.PutUint64(dst[8*i:], uint64(v))
		}
	default:
		copy(dst, t.u8)
	}
	return dst
}

// Close implements engine.Session.
func (s *session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.pool.Close()
		s.plans, s.arena = nil, nil
	}
	return nil
}
