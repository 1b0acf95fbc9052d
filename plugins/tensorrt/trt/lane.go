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

// lane is one CUDA stream with its execution context, event and buffers.
// A lane runs one batch at a time, on a goroutine locked to an OS thread
// whose current device it sets to the lane's device first.
type lane struct {
	m   *model
	dev *device
	id  int // stream index on the device
	ctx handle
	st  stream
	ev  event
	in  []ioBuffer
	out []ioBuffer

	// shapes holds each input's dims with the batch in dims[0].
	shapes [][]int64
	// rows is the batch of the input shapes last set; 0 forces a reset.
	rows int
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
}

// newLane creates the stream, event, context and buffers of stream id of
// dev on engine eng with optimization profile. The caller's OS thread has
// dev as its current device.
func newLane(m *model, dev *device, id int, eng handle, profile int) (l *lane, err error) {
	l = &lane{
		m: m, dev: dev, id: id,
		failed: make([]bool, m.rowsCap),
		placed: make([]placed, m.rowsCap),
		errBuf: make([]byte, errBufBytes),
	}
	defer func() {
		if err != nil {
			// SetProfile may have queued work on the stream.
			err = errors.Join(err, l.quiesce(time.Now().Add(m.settleGrace)), l.release())
			l = nil
		}
	}()
	if l.st, err = m.cuda.StreamCreate(); err != nil {
		return l, err
	}
	if l.ev, err = m.cuda.EventCreate(); err != nil {
		return l, err
	}
	if l.ctx, err = m.trt.ContextCreate(eng); err != nil {
		return l, err
	}
	if profile != 0 {
		if err = m.trt.SetProfile(l.ctx, profile, l.st); err != nil {
			return l, err
		}
	}
	for i := range m.layout.inputs {
		t := &m.layout.inputs[i]
		l.shapes = append(l.shapes, append([]int64(nil), t.dims...))
		if err = l.addBuffer(&l.in, t); err != nil {
			return l, err
		}
	}
	for i := range m.layout.outputs {
		if err = l.addBuffer(&l.out, &m.layout.outputs[i]); err != nil {
			return l, err
		}
	}
	if len(l.out) > 1 {
		l.scratch = make([]byte, m.layout.outBytes)
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
	return l.m.trt.SetTensorAddress(l.ctx, t.cname, last.dev)
}

// release frees everything the lane owns; the caller's OS thread has the
// lane's device current.
func (l *lane) release() error {
	var errs []error
	if l.ctx != 0 {
		l.m.trt.ContextDestroy(l.ctx)
		l.ctx = 0
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
	if l.ev != 0 {
		errs = append(errs, l.m.cuda.EventDestroy(l.ev))
		l.ev = 0
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
// with the lane's device current.
func (l *lane) Run(b *accel.Batch) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
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
		err = l.launch(l.m.layout.rows(n), n, want)
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

// stage queues the copies that bring the batch's inputs into the lane's
// device buffers, and reports whether any sample wants its output.
//
// Samples LoadSamples copied into an arena (pinned host memory, or device
// memory under start_from_device) are copied from there: one copy per
// input when the batch is a contiguous run of one arena, else one per
// sample and input (see gather). Samples in no arena are first copied
// into the lane's pinned buffers, row by row, then sent with one copy per
// input (or per row when the batch mixes both kinds). A sample without
// data of the right size fails here.
func (l *lane) stage(b *accel.Batch) (want bool, err error) {
	l.copies = l.copies[:0]
	n := len(b.Samples)
	var first placed
	contiguous, staged := true, 0
	for i, s := range b.Samples {
		want = want || s.WantOutput
		p, ok := l.m.samples.place(s.Index)
		if ok {
			if i == 0 {
				first = p
			}
			contiguous = contiguous && p.a == first.a && p.pos == first.pos+i
			l.placed[i] = p
			continue
		}
		contiguous = false
		l.placed[i] = placed{}
		data := l.m.samples.host(s)
		if len(data) != l.m.layout.inBytes {
			l.failed[i] = true
			b.Fail(s.ID, l.sampleError(s, data))
			continue
		}
		for k := range l.in {
			buf := &l.in[k]
			sb := buf.t.sampleBytes
			copy(native.Bytes(buf.host, l.m.rowsCap*sb)[i*sb:(i+1)*sb], data[buf.t.offset:buf.t.offset+sb])
		}
		staged++
	}
	switch {
	case contiguous:
		for k := range l.in {
			buf := &l.in[k]
			l.addCopy(buf.dev, first.a.input(l.dev.slot, buf.t, first.pos), uintptr(n*buf.t.sampleBytes), first.a)
		}
		return want, l.flushCopies()
	case staged == n:
		for k := range l.in {
			buf := &l.in[k]
			l.addCopy(buf.dev, buf.hostAddr(), uintptr(n*buf.t.sampleBytes), nil)
		}
		return want, l.flushCopies()
	}
	for i := range b.Samples {
		if l.failed[i] {
			continue
		}
		for k := range l.in {
			buf := &l.in[k]
			sb := uintptr(buf.t.sampleBytes)
			dst := buf.dev + uintptr(i)*sb
			if p := l.placed[i]; p.a != nil {
				l.addCopy(dst, p.a.input(l.dev.slot, buf.t, p.pos), sb, p.a)
			} else {
				l.addCopy(dst, buf.hostAddr()+uintptr(i)*sb, sb, nil)
			}
		}
	}
	return want, l.gather()
}

// laneCopy is one copy into a device input buffer.
type laneCopy struct {
	dst, src, size uintptr
	kind           copyKind
}

// addCopy adds a copy from src, in arena a or (nil) the lane's pinned
// buffers, to the lane's list.
func (l *lane) addCopy(dst, src, size uintptr, a *arena) {
	kind := hostToDevice
	if a != nil && a.onDevice() {
		kind = deviceToDevice
	}
	l.copies = append(l.copies, laneCopy{dst: dst, src: src, size: size, kind: kind})
}

// flushCopies queues the listed copies one by one on the lane's stream.
func (l *lane) flushCopies() error {
	for _, c := range l.copies {
		if err := l.m.cuda.CopyAsync(c.dst, c.src, c.size, c.kind, l.st); err != nil {
			return err
		}
	}
	return nil
}

// gather queues the per-sample copies of a batch that is not one
// contiguous run: one cudaMemcpyBatchAsync when the batch_copies option is
// on and the runtime has it, else one cudaMemcpyAsync per copy.
func (l *lane) gather() error {
	cuda := l.m.cuda
	if len(l.copies) > 1 && l.m.cfg.BatchCopies && cuda.BatchCopies() {
		l.gatherDst, l.gatherSrc, l.gatherSize = l.gatherDst[:0], l.gatherSrc[:0], l.gatherSize[:0]
		for _, c := range l.copies {
			l.gatherDst = append(l.gatherDst, c.dst)
			l.gatherSrc = append(l.gatherSrc, c.src)
			l.gatherSize = append(l.gatherSize, c.size)
		}
		return cuda.CopyBatchAsync(l.gatherDst, l.gatherSrc, l.gatherSize, l.st)
	}
	return l.flushCopies()
}

func (l *lane) sampleError(s sdk.Sample, data []byte) error {
	if data == nil {
		return fmt.Errorf("tensorrt: sample %d (index %d) has no data: it was neither loaded nor sent", s.ID, s.Index)
	}
	return fmt.Errorf("tensorrt: sample %d (index %d) has %d bytes; the engine's inputs take %d per sample",
		s.ID, s.Index, len(data), l.m.layout.inBytes)
}

// launch sets the input shapes for rows, enqueues the engine, queues the
// copies of the first n rows' outputs to host memory, and records the
// event. The outputs reach host memory whether or not a sample wants its
// bytes, as the rules require; only end_on_device skips the copy when
// none does.
func (l *lane) launch(rows, n int, want bool) error {
	trt, cuda := l.m.trt, l.m.cuda
	if l.m.layout.dynamic && rows != l.rows {
		l.rows = 0
		for k := range l.in {
			l.shapes[k][0] = int64(rows)
			if err := trt.SetInputShape(l.ctx, l.in[k].t.cname, l.shapes[k], l.errBuf); err != nil {
				return err
			}
		}
		l.rows = rows
	}
	if err := trt.Enqueue(l.ctx, l.st, l.errBuf); err != nil {
		return err
	}
	if want || !l.m.cfg.EndOnDevice {
		for k := range l.out {
			buf := &l.out[k]
			if err := cuda.CopyAsync(buf.hostAddr(), buf.dev, uintptr(n*buf.t.sampleBytes), deviceToHost, l.st); err != nil {
				return err
			}
		}
	}
	return cuda.EventRecord(l.ev, l.st)
}

// drain waits for the work already queued on the lane's stream.
func (l *lane) drain() error {
	if err := l.m.cuda.EventRecord(l.ev, l.st); err != nil {
		return err
	}
	return l.wait()
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

// output returns sample row i's outputs, concatenated in engine order.
func (l *lane) output(i int) []byte {
	if len(l.out) == 1 {
		sb := l.out[0].t.sampleBytes
		return native.Bytes(l.out[0].host, l.m.rowsCap*sb)[i*sb : (i+1)*sb]
	}
	off := 0
	for k := range l.out {
		sb := l.out[k].t.sampleBytes
		off += copy(l.scratch[off:], native.Bytes(l.out[k].host, l.m.rowsCap*sb)[i*sb:(i+1)*sb])
	}
	return l.scratch
}

func (l *lane) failAll(b *accel.Batch, err error) {
	err = fmt.Errorf("tensorrt: device %d stream %d: %w", l.dev.ordinal, l.id, err)
	for i, s := range b.Samples {
		if !l.failed[i] {
			b.Fail(s.ID, err)
		}
	}
}

// warm runs one full batch of zeros through the engine.
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
	if err := l.launch(rows, rows, false); err != nil {
		if syncErr := l.drain(); syncErr != nil {
			return l.dev.Fail(syncErr)
		}
		return err
	}
	if err := l.wait(); err != nil {
		return l.dev.Fail(err)
	}
	return nil
}

// wait blocks until the lane's event fires. With a device timeout it polls
// the event with growing pauses instead and fails with ErrDeviceTimeout
// once the batch has run longer than the timeout; the batch's work then
// stays queued on the stream (see quiesce).
func (l *lane) wait() error {
	timeout := l.m.cfg.Timeout
	if timeout <= 0 {
		return l.m.cuda.EventSynchronize(l.ev)
	}
	if err := poll(time.Now().Add(timeout), func() (bool, error) { return l.m.cuda.EventQuery(l.ev) }); err != nil {
		return fmt.Errorf("%w: batch still running after %v", err, timeout)
	}
	return nil
}

// quiesce waits until the lane's stream has run everything queued on it,
// or fails with ErrDeviceTimeout at deadline. A sticky device error counts
// as drained: nothing queued runs after it.
func (l *lane) quiesce(deadline time.Time) error {
	if l.st == 0 {
		return nil
	}
	err := poll(deadline, func() (bool, error) {
		done, _ := l.m.cuda.StreamQuery(l.st)
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
