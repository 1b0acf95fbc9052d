package aic

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// device is one AIC100 card in use.
type device struct {
	accel.Health
	qid  int32
	acts []*activation
	// replica is the device's copy of the samples (see samples), and cpus
	// its NUMA node's CPUs under numa_config (nil: not placed).
	replica int
	cpus    []int
}

// newDevice returns device qid, healthy.
func newDevice(qid int32) *device {
	d := &device{qid: qid}
	d.Init(plugin, "device", int(qid))
	return d
}

// mapHost maps n bytes outside the Go heap for the runtime.
func mapHost(n int) (native.Mapped, error) {
	m, err := native.Map(n)
	if err != nil {
		return m, fmt.Errorf("qaic: %w", err)
	}
	return m, nil
}

// activation is one copy of the program, loaded and activated on its own
// NSP cores, with its queue and exec objects.
type activation struct {
	dev    *device
	index  int
	prog   object
	queue  object
	props  native.Mapped
	loaded bool
	active bool
	execs  []*execObj
}

// ioView is one I/O buffer of an exec object as the scheduler sees it.
type ioView struct {
	name string
	data []byte // the whole batch
	row  int    // bytes of one batch row
	off  int    // where this input starts in a sample (inputs only)
}

// execObj is one exec object: its host buffers, bound once with
// qaicExecObjSetData, and views of its inputs and outputs.
type execObj struct {
	p     *program
	act   *activation
	index int
	obj   object
	bufs  []native.Mapped
	// qbufs holds the QBuffer array given to qaicExecObjSetData, outside
	// the Go heap in case the runtime keeps the pointer.
	qbufs   native.Mapped
	ins     []ioView
	outs    []ioView
	scratch []byte
	// rowOK marks the rows of the current batch that hold a valid sample.
	rowOK []bool
	// event, done and key serve completion=callback: the exec object's
	// event, the channel its callback wakes and the key that finds it.
	event object
	done  chan struct{}
	key   uintptr
	// outstanding is set while a submission may still run: from a
	// successful enqueue until a wait reports its completion. A wait that
	// times out leaves it set, and the device may still read and write
	// the buffers; release waits for it before freeing them.
	outstanding bool
}

// wait waits up to timeout for e's submission and clears outstanding
// unless the wait timed out. The runtime takes whole microseconds, and 0
// would mean no limit.
func (e *execObj) wait(rt runtimeAPI, timeout time.Duration) error {
	err := rt.Wait(e.obj, uint32(max(timeout, time.Microsecond).Microseconds()))
	var se *StatusError
	if !errors.As(err, &se) || se.Status != StatusTimedOut {
		e.outstanding = false
	}
	return err
}

// layout is the program's I/O, read from its buffer mappings.
type layout struct {
	mappings          []mapping // by index
	inBytes, outBytes int       // one sample
}

// program is a QPC running on its devices.
type program struct {
	cfg      Config
	rt       runtimeAPI
	ctx      object
	qpc      object
	qpcBytes native.Mapped
	layout   *layout
	devices  []*device
	execs    []*execObj
	sched    *accel.Scheduler[*execObj]
	samples  *samples
	// batch is the compiled batch size: batch_size, or read from the
	// program and inputs, the data set's tensors.
	batch  int
	inputs []sdk.TensorSpec
	// facts are the submission facts, read at Load.
	facts sdk.SubmissionFacts
	// settleGrace bounds how long release waits for submissions still
	// outstanding after a wait timed out: the wait timeout, and at least
	// minSettleGrace.
	settleGrace time.Duration
}

// minSettleGrace is the least time release gives an outstanding submission.
const minSettleGrace = 2 * time.Second

// openProgram creates the context, opens the QPC and brings up every
// activation and exec object on every device; inputs are the data set's
// tensors, from which a batch_size of 0 is read. On error it releases what
// it built.
func openProgram(rt runtimeAPI, cfg Config, qids []int32, qpcPath string, qpcBytes []byte, inputs []sdk.TensorSpec) (p *program, err error) {
	p = &program{cfg: cfg, rt: rt, settleGrace: max(cfg.WaitTimeout, minSettleGrace), inputs: inputs}
	defer func() {
		if err != nil {
			err = errors.Join(err, p.release())
			p = nil
		}
	}()
	if cfg.Completion == CompletionCallback && !rt.Events() {
		return p, errNoEvents
	}
	if err = accel.CheckNUMA(cfg.NUMA); err != nil {
		return p, err
	}
	for _, q := range qids {
		p.devices = append(p.devices, newDevice(q))
	}
	p.samples = newSamples(cfg.NUMA, p.devices)
	if p.ctx, err = rt.CreateContext(qids); err != nil {
		return p, err
	}
	if err = p.openQPC(qpcPath, qpcBytes); err != nil {
		return p, err
	}
	for _, d := range p.devices {
		// On the node's CPUs, the runtime's queue threads inherit them.
		err = accel.OnCPUs(d.cpus, func() error {
			for a := range cfg.Activations {
				if err := p.activate(d, a); err != nil {
					return fmt.Errorf("device %d activation %d: %w", d.qid, a, err)
				}
			}
			return nil
		})
		if err != nil {
			return p, err
		}
	}
	p.sched = accel.NewScheduler(accel.SchedulerConfig{
		Plugin: plugin, BatchSize: p.batch, Split: accel.Full, NoDevice: ErrNoDevice,
	}, p.execs, len(p.devices))
	return p, nil
}

// openQPC opens the program container from bytes or a file; a directory
// means its programqpc.bin.
func (p *program) openQPC(path string, data []byte) (err error) {
	if len(data) > 0 {
		if p.qpcBytes, err = mapHost(len(data)); err != nil {
			return err
		}
		copy(p.qpcBytes.Bytes(), data)
		p.qpc, err = p.rt.OpenQPCBytes(p.qpcBytes)
		return err
	}
	if st, statErr := os.Stat(path); statErr == nil && st.IsDir() {
		path = filepath.Join(path, "programqpc.bin")
	} else if statErr != nil {
		return fmt.Errorf("qaic: program %q: %w", path, statErr)
	}
	p.qpc, err = p.rt.OpenQPC(path)
	return err
}

// activate creates, loads and activates one copy of the program on d, with
// its queue and exec objects.
func (p *program) activate(d *device, index int) error {
	a := &activation{dev: d, index: index}
	d.acts = append(d.acts, a)
	var err error
	// QAicProgramProperties is opaque here: the runtime initializes it.
	if a.props, err = mapHost(4096); err != nil {
		return err
	}
	name := fmt.Sprintf("mlperf-host-%d-%d", d.qid, index)
	if a.prog, err = p.rt.CreateProgram(p.ctx, d.qid, name, p.qpc, a.props); err != nil {
		return err
	}
	if err = p.rt.LoadProgram(a.prog); err != nil {
		return err
	}
	a.loaded = true
	if err = p.rt.Activate(a.prog, true); err != nil {
		return err
	}
	a.active = true
	if a.queue, err = p.rt.CreateQueue(p.ctx, d.qid, uint32(p.cfg.QueueThreads)); err != nil {
		return err
	}
	if p.layout == nil {
		if p.layout, err = p.readLayout(a.prog); err != nil {
			return err
		}
	}
	iod, err := p.rt.IODescriptor(a.prog)
	if err != nil {
		return err
	}
	for i := range p.cfg.SetSize {
		e := &execObj{p: p, act: a, index: i, rowOK: make([]bool, p.batch)}
		a.execs = append(a.execs, e)
		if err := p.bind(e, iod); err != nil {
			return fmt.Errorf("exec object %d: %w", i, err)
		}
		p.execs = append(p.execs, e)
	}
	return nil
}

// readLayout reads the buffer mappings, sets the batch size and checks
// that every buffer holds that many whole rows.
func (p *program) readLayout(prog object) (*layout, error) {
	ms, err := p.rt.BufferMappings(prog)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(ms, func(a, b mapping) int { return a.index - b.index })
	l := &layout{mappings: ms}
	for i, m := range ms {
		if m.index != i {
			return nil, fmt.Errorf("buffer mappings are not indexed 0..%d", len(ms)-1)
		}
	}
	if p.batch, err = compiledBatch(p.cfg.BatchSize, ms, p.inputs); err != nil {
		return nil, err
	}
	batch := p.batch
	for _, m := range ms {
		if m.size%batch != 0 {
			return nil, fmt.Errorf("buffer %q has %d bytes, not a multiple of batch_size %d: set batch_size to the QPC's compiled batch size",
				m.name, m.size, batch)
		}
		switch m.ioType {
		case ioInput:
			l.inBytes += m.size / batch
		case ioOutput:
			l.outBytes += m.size / batch
		default:
			return nil, fmt.Errorf("buffer %q has unknown direction %d", m.name, m.ioType)
		}
	}
	if l.inBytes == 0 || l.outBytes == 0 {
		return nil, errors.New("program needs at least one input and one output buffer")
	}
	return l, nil
}

// compiledBatch returns the program's batch size: batch_size when set,
// else the one every input buffer holds whole samples of the data set's
// tensors of (input buffer k holds tensor k's rows), else 1 when the host
// declared no tensors.
func compiledBatch(set int, ms []mapping, inputs []sdk.TensorSpec) (int, error) {
	if set > 0 {
		return set, nil
	}
	if len(inputs) == 0 {
		return 1, nil
	}
	var ins []mapping
	for _, m := range ms {
		if m.ioType == ioInput {
			ins = append(ins, m)
		}
	}
	if len(ins) != len(inputs) {
		return 0, fmt.Errorf("the program has %d input buffers, the data set %d tensors: set batch_size", len(ins), len(inputs))
	}
	batch := 0
	for k, t := range inputs {
		row := t.DType.Size()
		for _, d := range t.Shape {
			if d < 0 {
				return 0, fmt.Errorf("tensor %s has a dimension that varies: set batch_size to the QPC's compiled batch size", t.Name)
			}
			row *= d
		}
		if row == 0 || ins[k].size%row != 0 || batch != 0 && ins[k].size/row != batch {
			return 0, fmt.Errorf("buffer %q (%d bytes) does not hold a whole batch of tensor %s (%d bytes a sample): set batch_size",
				ins[k].name, ins[k].size, t.Name, row)
		}
		batch = ins[k].size / row
	}
	return batch, nil
}

// bind creates an exec object with host buffers for every mapping.
func (p *program) bind(e *execObj, iod ioData) error {
	var err error
	if e.obj, err = p.rt.CreateExecObj(p.ctx, e.act.prog, iod); err != nil {
		return err
	}
	if e.qbufs, err = mapHost(len(p.layout.mappings) * int(unsafe.Sizeof(qBuffer{}))); err != nil {
		return err
	}
	qbufs := unsafe.Slice((*qBuffer)(unsafe.Pointer(&e.qbufs.Bytes()[0])), len(p.layout.mappings))
	inOff := 0
	for i, m := range p.layout.mappings {
		b, err := mapHost(m.size)
		if err != nil {
			return err
		}
		e.bufs = append(e.bufs, b)
		data := b.Bytes()
		qbufs[i] = qBuffer{size: uintptr(m.size), buf: unsafe.Pointer(&data[0])}
		v := ioView{name: m.name, data: data, row: m.size / p.batch}
		if m.ioType == ioInput {
			v.off = inOff
			inOff += v.row
			e.ins = append(e.ins, v)
		} else {
			e.outs = append(e.outs, v)
		}
	}
	if len(e.outs) > 1 {
		e.scratch = make([]byte, p.layout.outBytes)
	}
	if p.cfg.Completion == CompletionCallback {
		if err := p.listen(e); err != nil {
			return err
		}
	}
	return p.rt.SetData(e.obj, qbufs)
}

// release frees every exec object, activation, the QPC and the context.
// No batch is in flight, but a batch whose wait timed out may still be
// running: release first waits for such submissions, up to settleGrace in
// all. A device where one is still running is abandoned: its activations
// stay loaded with their buffers mapped, and the QPC and the context they
// belong to are kept too.
func (p *program) release() error {
	var errs []error
	deadline := time.Now().Add(p.settleGrace)
	wedged := false
	for _, d := range p.devices {
		if err := p.settle(d, deadline); err != nil {
			wedged = true
			errs = append(errs, err)
			continue
		}
		for _, a := range d.acts {
			errs = append(errs, p.releaseActivation(a))
		}
	}
	p.devices, p.execs = nil, nil
	if wedged {
		return errors.Join(errs...)
	}
	if p.samples != nil {
		errs = append(errs, p.samples.release())
	}
	if p.qpc != 0 {
		errs = append(errs, p.rt.CloseQPC(p.qpc))
		p.qpc = 0
	}
	errs = append(errs, p.qpcBytes.Free())
	p.qpcBytes = native.Mapped{}
	if p.ctx != 0 {
		errs = append(errs, p.rt.ReleaseContext(p.ctx))
		p.ctx = 0
	}
	return errors.Join(errs...)
}

// settle waits until no exec object of d has a submission outstanding, or
// until deadline.
func (p *program) settle(d *device, deadline time.Time) error {
	for _, a := range d.acts {
		for _, e := range a.execs {
			if !e.outstanding {
				continue
			}
			if err := e.wait(p.rt, time.Until(deadline)); err != nil && e.outstanding {
				return fmt.Errorf("qaic: device %d activation %d exec %d: a submission is still running: %w; "+
					"the device is left as it is, its programs loaded until the process exits",
					d.qid, a.index, e.index, err)
			}
		}
	}
	return nil
}

func (p *program) releaseActivation(a *activation) error {
	var errs []error
	for _, e := range a.execs {
		if e.obj != 0 {
			if err := p.rt.ReleaseExecObj(e.obj); err != nil {
				// The runtime may still hold the buffers: keep them.
				errs = append(errs, err)
				continue
			}
		}
		errs = append(errs, p.unlisten(e))
		for _, b := range e.bufs {
			errs = append(errs, b.Free())
		}
		errs = append(errs, e.qbufs.Free())
	}
	a.execs = nil
	if a.queue != 0 {
		errs = append(errs, p.rt.ReleaseQueue(a.queue))
	}
	if a.active {
		errs = append(errs, p.rt.Activate(a.prog, false))
	}
	if a.loaded {
		errs = append(errs, p.rt.UnloadProgram(a.prog))
	}
	if a.prog != 0 {
		errs = append(errs, p.rt.ReleaseProgram(a.prog))
	}
	errs = append(errs, a.props.Free())
	return errors.Join(errs...)
}
