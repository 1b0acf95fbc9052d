package trt

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// ioBuffer is one I/O tensor's memory on a lane: a device buffer TensorRT
// reads or writes, and a pinned host buffer for asynchronous copies, each
// holding the lane's full batch.
type ioBuffer struct {
	t    *tensorInfo
	dev  uintptr
	host unsafe.Pointer
}

// hostAddr is the pinned buffer's address (C memory) for CUDA calls.
func (b *ioBuffer) hostAddr() uintptr { return uintptr(b.host) }

// lane is one CUDA stream with its execution contexts (one per variant),
// event and buffers. A lane runs one batch at a time, on a goroutine
// locked to an OS thread whose current device it sets to the lane's device
// first.
type lane struct {
	m   *model
	dev *device
	id  int // stream index on the device
	// ctxs are the lane's contexts, one per variant in the model's order.
	ctxs []*engineContext
	// st carries the lane's copies, and its engine unless the device has
	// shared inference streams; inf is the stream the engine runs on.
	st, inf stream
	// ev fires when the batch is done; with a separate inference stream,
	// inputsIn orders the engine after the input copies and engineDone
	// the output copies after the engine.
	ev, inputsIn, engineDone event
	in                       []ioBuffer
	out                      []ioBuffer
	// table holds the gather kernel's source addresses, rowsCap per input,
	// in pinned memory the kernel reads; params its launch arguments.
	table  unsafe.Pointer
	params native.Mapped

	// failed[i] marks a sample failed while staging.
	failed  []bool
	errBuf  []byte
	scratch []byte
	// placed[i] is where sample row i of the batch was loaded, if it was.
	placed []placed
	// copies lists the batch's copies into the input buffers; gatherDst,
	// gatherSrc and gatherSize are the arrays for one batched copy.
	copies                           []laneCopy
	gatherDst, gatherSrc, gatherSize []uintptr
	// shape[k] is input k's dimensions after the batch for the batch
	// being run, when the inputs vary beyond the batch; outRows[k] is
	// output k's row size in that batch.
	shape   [][]int64
	outRows []int
}

// newLane creates the stream, event, contexts and buffers of stream id of
// dev: a context of each variant, on engines[v]'s copy and profile the
// lane's index gives it (see variant.engineOf). The caller's OS thread has
// dev as its current device.
func newLane(m *model, dev *device, id int, engines [][]handle) (l *lane, err error) {
	l = &lane{
		m: m, dev: dev, id: id,
		failed: make([]bool, m.rowsCap),
		placed: make([]placed, m.rowsCap),
		errBuf: make([]byte, errBufBytes),
	}
	defer func() {
		if err != nil {
			// SetProfile may have queued work on the stream.
			err = errors.Join(err, quiesce(m.cuda, l.st, time.Now().Add(m.settleGrace)), l.release())
			l = nil
		}
	}()
	if l.st, err = m.cuda.StreamCreate(); err != nil {
		return l, err
	}
	l.inf = l.st
	if n := len(dev.inference); n > 0 {
		l.inf = dev.inference[id%n]
		for _, e := range []*event{&l.inputsIn, &l.engineDone} {
			if *e, err = m.cuda.EventCreate(false); err != nil {
				return l, err
			}
		}
	}
	if l.ev, err = m.cuda.EventCreate(!m.cfg.SpinWait); err != nil {
		return l, err
	}
	if m.drv != nil {
		if err = l.allocGather(); err != nil {
			return l, err
		}
	}
	for i, v := range m.variants {
		c := &engineContext{v: v}
		l.ctxs = append(l.ctxs, c)
		cp, profile := v.engineOf(id)
		if c.ctx, err = m.trt.ContextCreate(engines[i][cp]); err != nil {
			return l, err
		}
		if profile != 0 {
			if err = m.trt.SetProfile(c.ctx, profile, l.st); err != nil {
				return l, err
			}
		}
		for k := range v.layout.inputs {
			c.shapes = append(c.shapes, slices.Clone(v.layout.inputs[k].dims))
		}
		for k := range v.layout.outputs {
			c.outRows = append(c.outRows, v.layout.outputs[k].sampleBytes)
		}
		if m.cfg.Graphs {
			c.graphs = map[int]*laneGraph{}
		}
	}
	for i := range m.layout.inputs {
		if err = l.addBuffer(&l.in, &m.layout.inputs[i]); err != nil {
			return l, err
		}
	}
	for i := range m.layout.outputs {
		if err = l.addBuffer(&l.out, &m.layout.outputs[i]); err != nil {
			return l, err
		}
	}
	if m.layout.varShape {
		for k := range m.layout.inputs {
			l.shape = append(l.shape, slices.Clone(m.layout.inputs[k].hi))
		}
	}
	l.outRows = slices.Clone(l.ctxs[0].outRows)
	outBytes := 0
	for k := range m.layout.outputs {
		outBytes += m.layout.outputs[k].sampleBytes
	}
	if len(l.out) > 1 {
		l.scratch = make([]byte, outBytes)
	}
	return l, nil
}

func (l *lane) addBuffer(bufs *[]ioBuffer, t *tensorInfo) error {
	size := uintptr(l.m.rowsCap * t.sampleBytes)
	b := ioBuffer{t: t}
	var err error
	if b.dev, err = l.m.cuda.Malloc(size); err != nil {
		return fmt.Errorf("tensor %q: %w", t.name, err)
	}
	*bufs = append(*bufs, b)
	last := &(*bufs)[len(*bufs)-1]
	if last.host, err = l.m.cuda.MallocHost(size); err != nil {
		return fmt.Errorf("tensor %q: %w", t.name, err)
	}
	for _, c := range l.ctxs {
		if err := l.m.trt.SetTensorAddress(c.ctx, t.cname, last.dev); err != nil {
			return err
		}
	}
	return nil
}

// release frees everything the lane owns; the caller's OS thread has the
// lane's device current.
func (l *lane) release() error {
	var errs []error
	errs = append(errs, l.releaseGraphs())
	for _, c := range l.ctxs {
		if c.ctx != 0 {
			l.m.trt.ContextDestroy(c.ctx)
			c.ctx = 0
		}
	}
	for _, bufs := range [][]ioBuffer{l.in, l.out} {
		for _, b := range bufs {
			if b.dev != 0 {
				errs = append(errs, l.m.cuda.Free(b.dev))
			}
			if b.host != nil {
				errs = append(errs, l.m.cuda.FreeHost(b.host))
			}
		}
	}
	l.in, l.out = nil, nil
	errs = append(errs, l.releaseGather())
	for _, e := range []*event{&l.ev, &l.inputsIn, &l.engineDone} {
		if *e != 0 {
			errs = append(errs, l.m.cuda.EventDestroy(*e))
			*e = 0
		}
	}
	if l.st != 0 {
		errs = append(errs, l.m.cuda.StreamDestroy(l.st))
		l.st = 0
	}
	return errors.Join(errs...)
}

var _ accel.Slot = (*lane)(nil)

// Failed reports whether the lane's device failed.
func (l *lane) Failed() bool { return l.dev.Failed() }

// Run executes one batch on the calling goroutine, locked to its OS thread
// with the lane's device current and, with numa_config, on its node's
// CPUs.
func (l *lane) Run(b *accel.Batch) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if l.dev.cpus != nil {
		// The thread goes back to the Go scheduler afterwards: it gets its
		// CPUs back first.
		restore, err := accel.Pin(l.dev.cpus)
		if err != nil {
			_ = l.dev.Fail(err) // marks the device failed: the batch fails with it
		} else {
			defer restore()
		}
	}
	if err := l.m.cuda.SetDevice(l.dev.ordinal); err != nil {
		_ = l.dev.Fail(err) // marks the device failed: exec fails the batch
	}
	l.exec(b)
}

// exec runs one batch: stage inputs, enqueue, copy outputs back, wait for
// the stream's event and report each sample.
func (l *lane) exec(b *accel.Batch) {
	if b.Warmup() {
		if err := l.warm(); err != nil {
			b.SetErr(fmt.Errorf("tensorrt: warm up device %d stream %d: %w", l.dev.ordinal, l.id, err))
		}
		return
	}
	n := len(b.Samples)
	clear(l.failed[:n])
	if !b.Enter() {
		return
	}
	if l.dev.Failed() {
		l.failAll(b, l.dev.Err())
		b.Leave()
		return
	}
	want, err := l.stage(b)
	b.Leave()
	if err == nil && !slices.Contains(l.failed[:n], false) {
		return // every sample failed staging: nothing to run
	}
	if err == nil {
		c := l.contextFor(n)
		err = l.launch(c, c.v.layout.rows(n), n, want)
	}
	if err == nil {
		if err = l.wait(); err != nil {
			err = l.dev.Fail(err)
		}
	} else {
		// Work may already be queued on the stream; let it drain before the
		// lane's buffers are reused.
		if syncErr := l.drain(); syncErr != nil {
			err = l.dev.Fail(syncErr)
		}
	}
	if !b.Enter() {
		return
	}
	defer b.Leave()
	if err != nil {
		l.failAll(b, err)
		return
	}
	l.complete(b, want)
}

func (l *lane) sampleError(s sdk.Sample, data []byte) error {
	if data == nil {
		return fmt.Errorf("tensorrt: sample %d (index %d) has no data: it was neither loaded nor sent", s.ID, s.Index)
	}
	return fmt.Errorf("tensorrt: sample %d (index %d) has %d bytes; the engine's inputs take %d per sample",
		s.ID, s.Index, len(data), l.m.layout.inBytes)
}

// complete reports every sample not failed while staging.
func (l *lane) complete(b *accel.Batch, want bool) {
	for i, s := range b.Samples {
		if l.failed[i] {
			continue
		}
		if !want || !s.WantOutput {
			b.Complete(s.ID, nil)
			continue
		}
		b.Complete(s.ID, l.output(i))
	}
}

// output returns sample row i's outputs, concatenated in engine order,
// each row the size the batch's shapes gave it.
func (l *lane) output(i int) []byte {
	if len(l.out) == 1 {
		sb := l.outRows[0]
		return native.Bytes(l.out[0].host, l.m.rowsCap*l.out[0].t.sampleBytes)[i*sb : (i+1)*sb]
	}
	off := 0
	for k := range l.out {
		sb := l.outRows[k]
		off += copy(l.scratch[off:], native.Bytes(l.out[k].host, l.m.rowsCap*l.out[k].t.sampleBytes)[i*sb:(i+1)*sb])
	}
	return l.scratch[:off]
}

func (l *lane) failAll(b *accel.Batch, err error) {
	err = fmt.Errorf("tensorrt: device %d stream %d: %w", l.dev.ordinal, l.id, err)
	for i, s := range b.Samples {
		if !l.failed[i] {
			b.Fail(s.ID, err)
		}
	}
}

// warm runs one full batch of zeros through each variant. With
// cuda_graphs and a dynamic engine it then runs every other batch size the
// variant gets, so that each graph is captured before the timed run.
func (l *lane) warm() error {
	if l.dev.Failed() {
		return l.dev.Err()
	}
	rows := l.m.rowsCap
	for k := range l.in {
		buf := &l.in[k]
		size := rows * buf.t.sampleBytes
		clear(native.Bytes(buf.host, size))
		if err := l.m.cuda.CopyAsync(buf.dev, buf.hostAddr(), uintptr(size), hostToDevice, l.st); err != nil {
			return err
		}
	}
	for k := range l.shape {
		copy(l.shape[k], l.m.layout.inputs[k].hi)
	}
	for i, c := range l.ctxs {
		lo, hi := l.batchRange(i)
		sizes := []int{c.v.layout.rows(hi)}
		if c.graphs != nil && c.v.layout.dynamic {
			for r := c.v.layout.rows(lo); r < sizes[0]; r++ {
				sizes = append(sizes, r)
			}
		}
		for _, r := range sizes {
			if err := l.launch(c, r, r, false); err != nil {
				if syncErr := l.drain(); syncErr != nil {
					return l.dev.Fail(syncErr)
				}
				return err
			}
		}
	}
	if err := l.wait(); err != nil {
		return l.dev.Fail(err)
	}
	return nil
}
