package trt

import (
	"errors"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
)

// gatherParams is the gather kernel's launch arguments as cuLaunchKernel
// takes them: the argument values (destination, source table, row bytes),
// then a pointer to each. It lives in C memory, so the pointers stay
// valid.
type gatherParams struct {
	vals [3]uintptr
	ptrs [3]unsafe.Pointer
}

// allocGather allocates the lane's source table, in pinned memory the
// kernel reads, and its launch arguments.
func (l *lane) allocGather() error {
	var err error
	if l.table, err = l.m.cuda.MallocHost(uintptr(l.m.rowsCap * len(l.m.layout.inputs) * 8)); err != nil {
		return err
	}
	if l.params, err = native.Map(int(unsafe.Sizeof(gatherParams{}))); err != nil {
		return err
	}
	p := l.gatherParams()
	for i := range p.vals {
		p.ptrs[i] = unsafe.Pointer(&p.vals[i])
	}
	return nil
}

func (l *lane) gatherParams() *gatherParams {
	return (*gatherParams)(unsafe.Pointer(&l.params.Bytes()[0]))
}

func (l *lane) releaseGather() error {
	var errs []error
	if l.table != nil {
		errs = append(errs, l.m.cuda.FreeHost(l.table))
		l.table = nil
	}
	errs = append(errs, l.params.Free())
	l.params = native.Mapped{}
	return errors.Join(errs...)
}

// sources returns input k's part of the source table.
func (l *lane) sources(k int) []uintptr {
	all := unsafe.Slice((*uintptr)(l.table), l.m.rowsCap*len(l.m.layout.inputs))
	return all[k*l.m.rowsCap : (k+1)*l.m.rowsCap]
}

// launchGather queues one gather kernel per input for a batch of n rows
// that is not one contiguous run: each block copies one row, from where
// LoadSamples placed it or from the lane's pinned buffer (samples sent
// with the query, and failed rows, whose result nobody reads). The table
// is pinned memory and a lane waits for its batch before writing it again,
// so the kernel reads what this batch wrote.
func (l *lane) launchGather(n int) error {
	p := l.gatherParams()
	for k := range l.in {
		buf := &l.in[k]
		sb := uintptr(buf.t.sampleBytes)
		srcs := l.sources(k)
		for i := range n {
			if pl := l.placed[i]; pl.a != nil && !l.failed[i] {
				srcs[i] = pl.a.input(l.dev.slot, buf.t, pl.pos)
			} else {
				srcs[i] = buf.hostAddr() + uintptr(i)*sb
			}
		}
		p.vals = [3]uintptr{buf.dev, uintptr(l.table) + uintptr(k*l.m.rowsCap*8), sb}
		if err := l.m.drv.Launch(l.dev.gather, uint32(n), gatherBlock, l.st, unsafe.Pointer(&p.ptrs[0])); err != nil {
			return err
		}
	}
	return nil
}
