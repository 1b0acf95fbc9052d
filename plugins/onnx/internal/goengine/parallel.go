package goengine

import "github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"

// taskFunc adapts a function to kernels.Tasker. Create it at bind time:
// converting it to the interface then allocates nothing per run.
type taskFunc func(task int, s *kernels.Scratch)

func (f taskFunc) Run(task int, s *kernels.Scratch) { f(task, s) }

// chunk is the element count one task of an elementwise loop covers.
const chunk = 1 << 15

// chunked is an elementwise loop over [0, n) split into chunks run on the
// pool; it is itself a step.
type chunked struct {
	n  int
	fn func(lo, hi int)
}

func (c *chunked) Run(task int, _ *kernels.Scratch) {
	lo := task * chunk
	c.fn(lo, min(lo+chunk, c.n))
}

func (c *chunked) run(pool *kernels.Pool) {
	if c.n <= chunk {
		c.fn(0, c.n)
		return
	}
	pool.For((c.n+chunk-1)/chunk, c)
}
