package trt

import (
	"errors"
	"fmt"
)

// laneGraph is one lane's engine launch for one number of batch rows,
// captured as a CUDA graph: replaying it queues the engine's kernels with
// one call instead of TensorRT's enqueue. The graph reads and writes the
// lane's fixed buffers, so inputs are copied there first, as without it.
type laneGraph struct {
	g graph
	x graphExec
}

// capture records context c's engine launch for rows, whose input shapes
// are set, as a graph: the first batch of each size runs TensorRT's
// enqueue (which also does the setup TensorRT wants done before a
// capture), the next ones replay the graph. It captures on the lane's own
// stream, which no other thread uses, so capture in thread-local mode sees
// only this lane's work; the graph may then be replayed on a shared
// inference stream.
func (l *lane) capture(c *engineContext, rows int) (err error) {
	cuda := l.m.cuda
	if err := cuda.BeginCapture(l.st); err != nil {
		return err
	}
	enqueueErr := l.m.trt.Enqueue(c.ctx, l.st, l.errBuf)
	g, endErr := cuda.EndCapture(l.st)
	if err := errors.Join(enqueueErr, endErr); err != nil {
		if g != 0 {
			err = errors.Join(err, cuda.GraphDestroy(g))
		}
		return fmt.Errorf("capture a CUDA graph of %d rows: %w", rows, err)
	}
	x, err := cuda.GraphInstantiate(g)
	if err != nil {
		return fmt.Errorf("instantiate the CUDA graph of %d rows: %w", rows, errors.Join(err, cuda.GraphDestroy(g)))
	}
	c.graphs[rows] = &laneGraph{g: g, x: x}
	return nil
}

// releaseGraphs destroys the lane's graphs; their replays have run (the
// lane's streams are drained before it is released).
func (l *lane) releaseGraphs() error {
	var errs []error
	for _, c := range l.ctxs {
		for rows, g := range c.graphs {
			errs = append(errs, l.m.cuda.GraphExecDestroy(g.x), l.m.cuda.GraphDestroy(g.g))
			delete(c.graphs, rows)
		}
	}
	return errors.Join(errs...)
}
