package trt

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// device is one CUDA device in use: its engines and lanes, its slot in
// per-device tables, and whether it failed.
type device struct {
	accel.Health
	ordinal int
	slot    int
	engines []handle
	lanes   []*lane
	// inference holds the device's shared inference streams, if any.
	inference []stream
	// node is the device's NUMA node (an index of Config.NUMA), or -1;
	// cpus are the node's CPUs.
	node int
	cpus []int
	// module and gather are the loaded gather kernel (gather=kernel).
	module module
	gather function
	// deferred holds device allocations whose free waits until the
	// device's streams have drained: a batch that timed out may still have
	// copies queued that read them, and cudaFree would block on it.
	deferred []uintptr
	// wedged is set at release when a stream did not drain in time: then
	// nothing on the device is freed or destroyed.
	wedged bool
}

// idle reports whether every stream of the device has run all its queued
// work. Only a failed device can have busy streams while its lanes are out
// of use: a batch that timed out leaves its work queued.
func (d *device) idle(cuda cudaAPI) bool {
	for _, st := range d.streams() {
		if done, _ := cuda.StreamQuery(st); !done {
			return false
		}
	}
	return true
}

// streams lists every stream of the device: the lanes', then the shared
// inference streams.
func (d *device) streams() []stream {
	var out []stream
	for _, l := range d.lanes {
		if l.st != 0 {
			out = append(out, l.st)
		}
	}
	return append(out, d.inference...)
}

// settle waits until every stream of the device has run its queued work,
// or until deadline. The caller's OS thread has the device current.
func (d *device) settle(cuda cudaAPI, deadline time.Time) error {
	for _, l := range d.lanes {
		if err := quiesce(cuda, l.st, deadline); err != nil {
			return fmt.Errorf("tensorrt: CUDA device %d stream %d: %w; the device is left as it is, "+
				"its memory allocated until the process exits", d.ordinal, l.id, err)
		}
	}
	for i, st := range d.inference {
		if err := quiesce(cuda, st, deadline); err != nil {
			return fmt.Errorf("tensorrt: CUDA device %d inference stream %d: %w; the device is left as it is, "+
				"its memory allocated until the process exits", d.ordinal, i, err)
		}
	}
	return nil
}

// model is a loaded engine running on its lanes.
type model struct {
	cfg  Config
	cuda cudaAPI
	trt  trtAPI
	// drv is the CUDA driver, for the gather kernel; nil with gather=copies.
	drv driverAPI
	rt  handle
	// variants are the model's engines, by the largest batch they take;
	// layout is their inputs and outputs, which they share.
	variants []*variant
	layout   *layout
	// batch is the most samples one lane enqueues; rowsCap the rows its
	// buffers hold (the most any variant runs for a batch: batch raised
	// to a profile minimum, or a static engine's batch).
	batch, rowsCap int
	devices        []*device
	lanes          []*lane
	sched          *accel.Scheduler[*lane]
	samples        *sampleStore
	// deferredHost holds pinned sample memory whose free waits until every
	// stream has drained (see freeArena).
	deferredHost []unsafe.Pointer
	// built says Load built the engine from ONNX (with cfg.Precision);
	// facts are its submission facts, read at Load.
	built bool
	facts sdk.SubmissionFacts
	// src maps each engine input to the data set tensor it takes (an
	// engine whose inputs vary beyond the batch; see bindInputs).
	src []int
	// settleGrace bounds how long release waits for streams that still
	// hold work (after a device timeout) before it abandons their device:
	// the device timeout, and at least minSettleGrace.
	settleGrace time.Duration
}

// minSettleGrace is the least time release gives a stream to drain.
const minSettleGrace = 2 * time.Second

// newModel deserializes plans, the model's engines, on every device in
// ordinals and builds cfg.Streams lanes per device; drv is the CUDA driver
// when cfg gathers with the kernel. On error it releases what it built.
func newModel(cuda cudaAPI, trt trtAPI, drv driverAPI, cfg Config, plans [][]byte, ordinals []int) (m *model, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cfg.Graphs && !cuda.Graphs() {
		return nil, errors.New("cuda_graphs: this CUDA runtime has no cudaGraphInstantiateWithFlags (CUDA 11.4 and later)")
	}
	m = &model{cfg: cfg, cuda: cuda, trt: trt, drv: drv, samples: newSampleStore(),
		settleGrace: max(cfg.Timeout, minSettleGrace)}
	defer func() {
		if err != nil {
			err = errors.Join(err, m.release())
			m = nil
		}
	}()
	if err = accel.CheckNUMA(cfg.NUMA); err != nil {
		return m, err
	}
	if m.rt, err = trt.RuntimeCreate(); err != nil {
		return m, err
	}
	for slot, ord := range ordinals {
		if err = m.addDevice(slot, ord, plans); err != nil {
			return m, fmt.Errorf("device %d: %w", ord, err)
		}
	}
	sc := accel.SchedulerConfig{Plugin: plugin, BatchSize: m.batch, Split: accel.Balanced, NoDevice: ErrNoDevice}
	if m.layout.varShape {
		sc.Group = m.compareShapes
	}
	m.sched = accel.NewScheduler(sc, m.lanes, len(m.devices))
	return m, nil
}

// addDevice deserializes the engines of one device and creates its lanes.
// The first device's engines say the variants' layouts. A dynamic-shape
// engine gives each optimization profile to one execution context at a
// time, so a device runs ceil(streams/profiles) copies of it.
func (m *model) addDevice(slot, ordinal int, plans [][]byte) error {
	if err := m.cuda.SetDevice(ordinal); err != nil {
		return err
	}
	d := &device{ordinal: ordinal, slot: slot, node: accel.NodeOf(m.cfg.NUMA, ordinal), cpus: accel.CPUsOf(m.cfg.NUMA, ordinal)}
	d.Init(plugin, "CUDA device", ordinal)
	m.devices = append(m.devices, d)
	// engines[v] are variant v's copies on this device.
	var engines [][]handle
	if m.variants == nil {
		var err error
		if engines, err = m.readVariants(d, plans); err != nil {
			return err
		}
	} else {
		engines = make([][]handle, len(m.variants))
	}
	for i, v := range m.variants {
		for len(engines[i]) < v.copies(m.cfg.Streams) {
			e, err := m.trt.Deserialize(m.rt, v.plan)
			if err != nil {
				return err
			}
			d.engines = append(d.engines, e)
			engines[i] = append(engines[i], e)
		}
	}
	for range m.cfg.InferenceStreams {
		st, err := m.cuda.StreamCreate()
		if err != nil {
			return fmt.Errorf("inference stream: %w", err)
		}
		d.inference = append(d.inference, st)
	}
	for s := range m.cfg.Streams {
		l, err := newLane(m, d, s, engines)
		if err != nil {
			return fmt.Errorf("stream %d: %w", s, err)
		}
		m.lanes = append(m.lanes, l)
		d.lanes = append(d.lanes, l)
	}
	if m.drv != nil {
		return m.loadGather(d)
	}
	return nil
}

// readVariants deserializes each plan on d (the first device) to read its
// layout, keeps the variants a batch runs on (see chooseVariants) and
// fixes the batch size. It returns the engines it read as the first copy
// of each variant kept, and destroys the others.
func (m *model) readVariants(d *device, plans [][]byte) ([][]handle, error) {
	var all []*variant
	read := map[*variant]handle{}
	defer func() {
		for _, e := range read {
			m.trt.EngineDestroy(e)
		}
	}()
	for i, plan := range plans {
		e, err := m.trt.Deserialize(m.rt, plan)
		if err != nil {
			return nil, fmt.Errorf("engine %d: %w", i, err)
		}
		v, err := readVariant(m.trt, e, plan, m.cfg.Streams)
		if err != nil {
			m.trt.EngineDestroy(e)
			return nil, fmt.Errorf("engine %d: %w", i, err)
		}
		read[v] = e
		all = append(all, v)
	}
	largest := 0
	for _, v := range all {
		largest = max(largest, v.layout.maxBatch)
	}
	m.batch = largest
	if b := m.cfg.BatchSize; b > 0 {
		if b > largest {
			return nil, fmt.Errorf("batch_size %d exceeds the engine's maximum batch %d", b, largest)
		}
		m.batch = b
	}
	vs, err := chooseVariants(all, m.batch)
	if err != nil {
		return nil, err
	}
	m.variants, m.layout = vs, vs[0].layout
	if err := m.checkVarShape(len(vs)); err != nil {
		return nil, err
	}
	engines := make([][]handle, len(vs))
	for i, v := range vs {
		m.rowsCap = max(m.rowsCap, v.layout.rows(min(m.batch, v.layout.maxBatch)))
		engines[i] = []handle{read[v]}
		d.engines = append(d.engines, read[v])
		delete(read, v)
	}
	return engines, nil
}

// loadGather loads the gather kernel into d's primary context, which the
// CUDA runtime made current on this thread.
func (m *model) loadGather(d *device) error {
	mod, err := m.drv.LoadModule(gatherPTX)
	if err != nil {
		return fmt.Errorf("load the gather kernel: %w", err)
	}
	d.module = mod
	if d.gather, err = m.drv.Function(mod, gatherKernel); err != nil {
		return fmt.Errorf("gather kernel: %w", err)
	}
	return nil
}

// release frees every lane, engine, sample and the runtime. The lanes'
// goroutines have exited, but a batch whose wait timed out may still have
// work queued on its stream: release first waits for every stream to
// drain, up to settleGrace in all, since freeing memory or an event that
// queued work still uses is undefined on a GPU. A device whose streams do
// not drain is abandoned: nothing on it is freed, and the runtime, which
// must outlive its engines, is kept too.
func (m *model) release() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var errs []error
	deadline := time.Now().Add(m.settleGrace)
	wedged := false
	for _, d := range m.devices {
		if err := m.cuda.SetDevice(d.ordinal); err != nil {
			errs = append(errs, err)
		}
		if err := d.settle(m.cuda, deadline); err != nil {
			d.wedged, wedged = true, true
			errs = append(errs, err)
		}
	}
	errs = append(errs, m.freeAllSamples())
	for _, d := range m.devices {
		if d.wedged {
			continue
		}
		if err := m.cuda.SetDevice(d.ordinal); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range d.lanes {
			errs = append(errs, l.release())
		}
		d.lanes = nil
		for _, st := range d.inference {
			errs = append(errs, m.cuda.StreamDestroy(st))
		}
		d.inference = nil
		if d.module != 0 {
			errs = append(errs, m.drv.UnloadModule(d.module))
			d.module, d.gather = 0, 0
		}
		for _, p := range d.deferred {
			errs = append(errs, m.cuda.Free(p))
		}
		d.deferred = nil
		for _, e := range d.engines {
			m.trt.EngineDestroy(e)
		}
		d.engines = nil
	}
	m.lanes = nil
	if !wedged {
		for _, p := range m.deferredHost {
			errs = append(errs, m.cuda.FreeHost(p))
		}
		m.deferredHost = nil
	}
	if m.rt != 0 && !wedged {
		m.trt.RuntimeDestroy(m.rt)
		m.rt = 0
	}
	return errors.Join(errs...)
}

var _ accel.Model = (*model)(nil)

// Stop waits for in-flight batches, ends the lane goroutines and frees
// everything.
func (m *model) Stop() error {
	m.sched.Stop()
	return m.release()
}

// Infer splits q into balanced batches of at most m.batch samples and runs
// each on an idle lane as one becomes free (see accel.Scheduler.Infer).
// A sample's output is the engine's outputs for its batch row,
// concatenated in engine order; it is nil unless the sample wants output.
func (m *model) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	return m.sched.Infer(ctx, q, c)
}

// Warmup runs one full batch of zeros on every lane.
func (m *model) Warmup(ctx context.Context) error { return m.sched.Warmup(ctx) }

// LoadSamples keeps the samples' bytes and copies them to every device
// when they fit (see [Residency]). Each sample holds every input of one
// batch row, concatenated in the engine's input order.
func (m *model) LoadSamples(ctx context.Context, samples []sdk.LoadedSample) error {
	return m.sched.Exclusive(ctx, func() error { return m.loadSamples(ctx, samples) })
}

// UnloadSamples forgets samples and frees their device memory.
func (m *model) UnloadSamples(ctx context.Context, indices []uint64) error {
	return m.sched.Exclusive(ctx, func() error { return m.unloadSamples(indices) })
}
