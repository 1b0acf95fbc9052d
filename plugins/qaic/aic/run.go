package aic

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

var (
	_ accel.Model = (*program)(nil)
	_ accel.Slot  = (*execObj)(nil)
)

// Infer runs q in batches of the compiled batch size, each on an idle exec
// object as one frees up (see accel.Scheduler.Infer). A sample's output is
// its row of every output buffer, concatenated in mapping order; it is nil
// unless the sample wants output.
func (p *program) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	return p.sched.Infer(ctx, q, c)
}

// Warmup runs one batch of zeros through every live exec object.
func (p *program) Warmup(ctx context.Context) error { return p.sched.Warmup(ctx) }

// LoadSamples keeps the samples' bytes for Infer: the host's, or with
// numa_config a copy per NUMA node of the cards in use (see samples).
// Each sample holds every input buffer's row, concatenated in
// buffer-mapping order.
func (p *program) LoadSamples(ctx context.Context, loaded []sdk.LoadedSample) error {
	return p.samples.load(ctx, loaded, p.layout.inBytes)
}

// UnloadSamples forgets samples.
func (p *program) UnloadSamples(_ context.Context, indices []uint64) error {
	if err := p.samples.unload(indices); err != nil {
		return fmt.Errorf("qaic: unload samples: %w", err)
	}
	return nil
}

// Stop waits for every batch, including ones Infer stopped waiting for,
// then frees everything.
func (p *program) Stop() error {
	p.sched.Stop()
	return p.release()
}

// Failed reports whether e's device failed.
func (e *execObj) Failed() bool { return e.act.dev.Failed() }

// Run executes one batch on e: a warm-up batch of zeros, or the batch's
// samples, each completed or failed when the batch is done. With
// numa_config it runs on the CPUs of e's card's node.
func (e *execObj) Run(b *accel.Batch) {
	dev := e.act.dev
	if dev.cpus == nil {
		e.run(b)
		return
	}
	err := accel.OnCPUs(dev.cpus, func() error {
		e.run(b)
		return nil
	})
	if err != nil {
		_ = dev.Fail(err) // the batch fails with its card
		e.run(b)
	}
}

// run executes one batch on e (see Run).
func (e *execObj) run(b *accel.Batch) {
	p := e.p
	if b.Warmup() {
		for _, in := range e.ins {
			clear(in.data)
		}
		if err := p.execute(e); err != nil {
			b.SetErr(fmt.Errorf("qaic: warm up device %d: %w", e.act.dev.qid, err))
		}
		return
	}
	if !b.Enter() {
		return
	}
	ok, want := p.fill(e, b)
	b.Leave()
	if !slices.Contains(ok, true) {
		return // every sample failed: nothing to run
	}
	err := p.execute(e)
	if !b.Enter() {
		return
	}
	defer b.Leave()
	for i, s := range b.Samples {
		switch {
		case !ok[i]:
		case err != nil:
			b.Fail(s.ID, fmt.Errorf("qaic: device %d activation %d exec %d: %w", e.act.dev.qid, e.act.index, e.index, err))
		case !want || !s.WantOutput:
			b.Complete(s.ID, nil)
		default:
			b.Complete(s.ID, e.output(i))
		}
	}
}

// fill copies each sample's inputs into its batch row. It fails samples
// without data of the right size and reports which rows are valid, in a
// slice owned by e.
func (p *program) fill(e *execObj, b *accel.Batch) (ok []bool, want bool) {
	ok = e.rowOK[:len(b.Samples)]
	clear(ok)
	for i, s := range b.Samples {
		data, loaded := p.samples.data[e.act.dev.replica][s.Index]
		if !loaded {
			data = s.Data
		}
		if len(data) != p.layout.inBytes {
			b.Fail(s.ID, sampleError(s, data, p.layout.inBytes))
			continue
		}
		for _, in := range e.ins {
			copy(in.data[i*in.row:(i+1)*in.row], data[in.off:in.off+in.row])
		}
		ok[i] = true
		want = want || s.WantOutput
	}
	return ok, want
}

func sampleError(s sdk.Sample, data []byte, want int) error {
	if data == nil {
		return fmt.Errorf("qaic: sample %d (index %d) has no data: it was neither loaded nor sent", s.ID, s.Index)
	}
	return fmt.Errorf("qaic: sample %d (index %d) has %d bytes; the program's inputs take %d per sample",
		s.ID, s.Index, len(data), want)
}

// execute enqueues e on its activation's queue and waits for it. A status
// that means the device is gone fails the device. When the wait times out
// the submission stays outstanding: the device may still use e's buffers.
func (p *program) execute(e *execObj) error {
	dev := e.act.dev
	if dev.Failed() {
		return dev.Err()
	}
	var err error
	if e.event != 0 {
		err = p.submitWithCallback(e)
	} else if err = p.rt.Enqueue(e.act.queue, e.obj, 0); err == nil {
		e.outstanding = true
		err = e.wait(p.rt, p.cfg.WaitTimeout)
	}
	var se *StatusError
	if errors.As(err, &se) && se.Status.deviceFatal() {
		return dev.Fail(err)
	}
	return err
}

// output returns row i of the outputs, concatenated in mapping order.
func (e *execObj) output(i int) []byte {
	if len(e.outs) == 1 {
		o := e.outs[0]
		return o.data[i*o.row : (i+1)*o.row]
	}
	n := 0
	for _, o := range e.outs {
		n += copy(e.scratch[n:], o.data[i*o.row:(i+1)*o.row])
	}
	return e.scratch
}
