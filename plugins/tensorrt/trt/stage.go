package trt

import (
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// stage queues the copies that bring the batch's inputs into the lane's
// device buffers, and reports whether any sample wants its output.
//
// Samples LoadSamples copied into an arena (pinned host memory, or device
// memory under start_from_device) are copied from there: one copy per
// input when the batch is a contiguous run of one arena, else one per
// sample and input (see gather). Samples in no arena are first copied
// into the lane's pinned buffers, row by row, then sent with one copy per
// input (or per row when the batch mixes both kinds). With gather=kernel a
// batch that is not one contiguous run takes one kernel launch per input
// instead of per-row copies. A sample without data of the right size
// fails here.
func (l *lane) stage(b *accel.Batch) (want bool, err error) {
	if l.m.layout.varShape {
		return l.stageShaped(b)
	}
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
	if l.m.drv != nil {
		return want, l.launchGather(n)
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
