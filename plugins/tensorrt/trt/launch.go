package trt

import (
	"fmt"
	"slices"
	"time"
)

// launch runs the engine on the batch whose inputs stage queued, then
// queues the copies of the first n rows' outputs to host memory and
// records the lane's event. The outputs reach host memory whether or not a
// sample wants its bytes, as the rules require; only end_on_device skips
// the copy when none does.
//
// The engine runs on the lane's inference stream: its own stream, or a
// device inference stream shared with other lanes, ordered after the
// input copies and before the output copies by two events. With
// cuda_graphs the launch replays the graph of context c for rows, captured
// after the first batch of that size.
func (l *lane) launch(c *engineContext, rows, n int, want bool) error {
	trt, cuda := l.m.trt, l.m.cuda
	separate := l.inf != l.st
	if separate {
		if err := cuda.EventRecord(l.inputsIn, l.st); err != nil {
			return err
		}
		if err := cuda.StreamWaitEvent(l.inf, l.inputsIn); err != nil {
			return err
		}
	}
	if g := c.graphs[rows]; g != nil {
		if err := cuda.GraphLaunch(g.x, l.inf); err != nil {
			return err
		}
	} else {
		if err := l.setRows(c, rows); err != nil {
			return err
		}
		if err := trt.Enqueue(c.ctx, l.inf, l.errBuf); err != nil {
			return err
		}
		if c.graphs != nil {
			if err := l.capture(c, rows); err != nil {
				return err
			}
		}
	}
	if separate {
		if err := cuda.EventRecord(l.engineDone, l.inf); err != nil {
			return err
		}
		if err := cuda.StreamWaitEvent(l.st, l.engineDone); err != nil {
			return err
		}
	}
	copy(l.outRows, c.outRows)
	if want || !l.m.cfg.EndOnDevice {
		for k := range l.out {
			buf := &l.out[k]
			if err := cuda.CopyAsync(buf.hostAddr(), buf.dev, uintptr(n*l.outRows[k]), deviceToHost, l.st); err != nil {
				return err
			}
		}
	}
	return cuda.EventRecord(l.ev, l.st)
}

// setRows sets the input shapes of context c's dynamic engine to rows
// batch rows and, for inputs that vary beyond the batch, the batch's
// shapes (l.shape); then it reads the outputs' row sizes those give.
func (l *lane) setRows(c *engineContext, rows int) error {
	lay := c.v.layout
	if !lay.dynamic {
		return nil
	}
	same := rows == c.rows
	for k := range l.shape {
		same = same && slices.Equal(c.shapes[k][1:], l.shape[k])
	}
	if same {
		return nil
	}
	c.rows = 0
	for k := range l.in {
		c.shapes[k][0] = int64(rows)
		if lay.varShape {
			copy(c.shapes[k][1:], l.shape[k])
		}
		if err := l.m.trt.SetInputShape(c.ctx, l.in[k].t.cname, c.shapes[k], l.errBuf); err != nil {
			return err
		}
	}
	if lay.varOutputs() {
		var d [maxDims]int64
		for k := range lay.outputs {
			t := &lay.outputs[k]
			if !t.varies {
				continue
			}
			rank, err := l.m.trt.TensorShape(c.ctx, t.cname, &d)
			if err != nil {
				return err
			}
			if rank != len(t.dims) {
				return fmt.Errorf("output %q has rank %d in the context, %d in the engine", t.name, rank, len(t.dims))
			}
			if c.outRows[k], err = rowBytes(t, d[1:rank]); err != nil {
				return err
			}
			if c.outRows[k] > t.sampleBytes {
				return fmt.Errorf("output %q: a row of %d bytes, more than the %d its buffer holds", t.name, c.outRows[k], t.sampleBytes)
			}
		}
	}
	c.rows = rows
	return nil
}

// drain waits for the work already queued on the lane's streams.
func (l *lane) drain() error {
	cuda := l.m.cuda
	if l.inf != l.st {
		if err := cuda.EventRecord(l.engineDone, l.inf); err != nil {
			return err
		}
		if err := cuda.StreamWaitEvent(l.st, l.engineDone); err != nil {
			return err
		}
	}
	if err := cuda.EventRecord(l.ev, l.st); err != nil {
		return err
	}
	return l.wait()
}

// wait blocks until the lane's event fires: asleep in
// cudaEventSynchronize, or polling the event without pause with
// spin_wait. With a device timeout it polls (with growing pauses unless
// spinning) and fails with ErrDeviceTimeout once the batch has run longer
// than the timeout; the batch's work then stays queued on the stream (see
// quiesce).
func (l *lane) wait() error {
	timeout := l.m.cfg.Timeout
	query := func() (bool, error) { return l.m.cuda.EventQuery(l.ev) }
	switch {
	case l.m.cfg.SpinWait:
		return spin(timeout, query)
	case timeout <= 0:
		return l.m.cuda.EventSynchronize(l.ev)
	}
	if err := poll(time.Now().Add(timeout), query); err != nil {
		return fmt.Errorf("%w: batch still running after %v", err, timeout)
	}
	return nil
}

// spin calls query without pause until it reports done or an error; with a
// timeout it fails with ErrDeviceTimeout once that has passed.
func spin(timeout time.Duration, query func() (bool, error)) error {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for i := 0; ; i++ {
		done, err := query()
		if err != nil || done {
			return err
		}
		// Reading the clock costs more than a query: look every 64.
		if timeout > 0 && i%64 == 63 && time.Now().After(deadline) {
			return fmt.Errorf("%w: batch still running after %v", ErrDeviceTimeout, timeout)
		}
	}
}

// quiesce waits until st has run everything queued on it, or fails with
// ErrDeviceTimeout at deadline. A sticky device error counts as drained:
// nothing queued runs after it.
func quiesce(cuda cudaAPI, st stream, deadline time.Time) error {
	if st == 0 {
		return nil
	}
	err := poll(deadline, func() (bool, error) {
		done, _ := cuda.StreamQuery(st)
		return done, nil
	})
	if err != nil {
		return fmt.Errorf("%w: work still queued on the stream", err)
	}
	return nil
}

// poll calls query with growing pauses until it reports done or an error,
// and fails with ErrDeviceTimeout once deadline has passed.
func poll(deadline time.Time, query func() (bool, error)) error {
	pause := pollStart
	for {
		done, err := query()
		if err != nil || done {
			return err
		}
		if time.Now().After(deadline) {
			return ErrDeviceTimeout
		}
		time.Sleep(pause)
		pause = min(2*pause, pollMax)
	}
}

// Event polling pauses under a device timeout.
const (
	pollStart = 5 * time.Microsecond
	pollMax   = time.Millisecond
)
