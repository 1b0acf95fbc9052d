//go:build linux || darwin

package ort

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// sessionConfig is what Load passes to newSession.
type sessionConfig struct {
	threads  int
	interOp  int     // inter-op threads; above 1, nodes run in parallel
	level    uintptr // GraphOptimizationLevel
	maxBatch int
	// externalDir is the directory ONNX Runtime reads the model's
	// external data from; "" for a model without external data.
	externalDir string
}

// configExternalFolder is the session config key (onnxruntime_session_options_config_keys.h)
// that says where the external data of a model created from bytes lies.
const configExternalFolder = "session.model_external_initializers_file_folder_path"

// Session is one ONNX Runtime session (OrtSession) and the objects one
// Run needs. See [engine.Session] for the contract.
//
// # Notes
//
// Run is not safe for concurrent use; calls are serialized by a mutex.
// Close waits for a Run in flight after asking ONNX Runtime to stop it.
type Session struct {
	lib      *library
	api      api
	handle   uintptr // OrtSession*
	runOpts  uintptr // OrtRunOptions*, carries the terminate flag
	inNames  uintptr // const char** (ONNX Runtime memory)
	outNames uintptr // const char** (ONNX Runtime memory)
	cNames   []uintptr
	inputs   []engine.TensorDesc
	outputs  []engine.TensorDesc
	maxBatch int

	closed    atomic.Bool
	closeOnce sync.Once

	mu       sync.Mutex // serializes Run and the release in Close; guards the fields below
	inVals   []uintptr  // OrtValue* per input of one Run (inBound's)
	outVals  []uintptr  // OrtValue* per output of one Run: outBound's, or ONNX Runtime's own
	inBound  []bound
	outBound []bound
	plan     outputPlan
	scratch  struct {
		info  uintptr // OrtTensorTypeAndShapeInfo*
		count uintptr
		data  uintptr
		empty [8]byte // data address for empty tensors
	}
}

var _ engine.Session = (*Session)(nil)

// newSession creates the OrtSession for model and reads its signature.
func newSession(l *library, model []byte, cfg sessionConfig) (_ *Session, err error) {
	if err := l.acquire(); err != nil {
		return nil, err
	}
	s := &Session{lib: l, api: l.api, maxBatch: cfg.maxBatch}
	defer func() {
		if err != nil {
			s.release()
		}
	}()
	a := s.api
	var opts uintptr
	if err := a.status(apiCreateSessionOptions, uintptr(unsafe.Pointer(&opts))); err != nil {
		return nil, fmt.Errorf("create session options: %w", err)
	}
	defer a.release(apiReleaseSessionOptions, opts)
	mode := uintptr(executionSeq)
	if cfg.interOp > 1 {
		mode = executionParallel
	}
	for _, o := range []struct {
		name string
		i    apiIndex
		v    uintptr
	}{
		{"intra-op threads", apiSetIntraOpNumThreads, uintptr(cfg.threads)},
		{"inter-op threads", apiSetInterOpNumThreads, uintptr(max(cfg.interOp, 1))},
		{"execution mode", apiSetSessionExecutionMode, mode},
		{"graph optimization level", apiSetSessionGraphOptimizationLevel, cfg.level},
	} {
		if err := a.status(o.i, opts, o.v); err != nil {
			return nil, fmt.Errorf("set %s: %w", o.name, err)
		}
	}
	if cfg.externalDir != "" {
		key, val := cString(configExternalFolder), cString(cfg.externalDir)
		if err := a.status(apiAddSessionConfigEntry, opts, uintptr(unsafe.Pointer(&key[0])), uintptr(unsafe.Pointer(&val[0]))); err != nil {
			return nil, fmt.Errorf("set the external data directory: %w", err)
		}
	}
	if err := a.status(apiCreateSessionFromArray, l.env, uintptr(unsafe.Pointer(&model[0])), uintptr(len(model)), opts,
		uintptr(unsafe.Pointer(&s.handle))); err != nil {
		return nil, fmt.Errorf("create session: %w", loadError(err))
	}
	if s.inputs, s.inNames, err = s.signature(apiSessionGetInputCount, apiSessionGetInputName, apiSessionGetInputTypeInfo, "input"); err != nil {
		return nil, err
	}
	if s.outputs, s.outNames, err = s.signature(apiSessionGetOutputCount, apiSessionGetOutputName, apiSessionGetOutputTypeInfo, "output"); err != nil {
		return nil, err
	}
	if err := a.status(apiCreateRunOptions, uintptr(unsafe.Pointer(&s.runOpts))); err != nil {
		return nil, fmt.Errorf("create run options: %w", err)
	}
	s.inVals, s.inBound = make([]uintptr, len(s.inputs)), make([]bound, len(s.inputs))
	s.outVals, s.outBound = make([]uintptr, len(s.outputs)), make([]bound, len(s.outputs))
	return s, nil
}

// signature reads the session's inputs or outputs: descriptors, and the
// array of their C names that Run passes back.
func (s *Session) signature(count, name, typeInfo apiIndex, kind string) ([]engine.TensorDesc, uintptr, error) {
	a := s.api
	var n uintptr
	if err := a.status(count, s.handle, uintptr(unsafe.Pointer(&n))); err != nil {
		return nil, 0, fmt.Errorf("%s count: %w", kind, err)
	}
	if n == 0 {
		return nil, 0, nil
	}
	var names uintptr
	if err := a.status(apiAllocatorAlloc, s.lib.alloc, n*unsafe.Sizeof(uintptr(0)), uintptr(unsafe.Pointer(&names))); err != nil {
		return nil, 0, fmt.Errorf("allocate %s names: %w", kind, err)
	}
	s.cNames = append(s.cNames, names)
	table := unsafe.Slice((*uintptr)(uintptrToPointer(names)), n)
	clear(table)
	descs := make([]engine.TensorDesc, n)
	for i := range descs {
		if err := a.status(name, s.handle, uintptr(i), s.lib.alloc, uintptr(unsafe.Pointer(&table[i]))); err != nil {
			return nil, 0, fmt.Errorf("%s %d name: %w", kind, i, err)
		}
		s.cNames = append(s.cNames, table[i])
		descs[i].Name = goString(table[i])
		var info uintptr
		if err := a.status(typeInfo, s.handle, uintptr(i), uintptr(unsafe.Pointer(&info))); err != nil {
			return nil, 0, fmt.Errorf("%s %q type: %w", kind, descs[i].Name, err)
		}
		err := s.describe(info, &descs[i])
		a.release(apiReleaseTypeInfo, info)
		if err != nil {
			return nil, 0, fmt.Errorf("%s %q: %w", kind, descs[i].Name, err)
		}
	}
	return descs, names, nil
}

// describe fills d's type and shape from an OrtTypeInfo.
func (s *Session) describe(info uintptr, d *engine.TensorDesc) error {
	a := s.api
	var kind, tensor, elem, rank uintptr
	if err := a.status(apiGetOnnxTypeFromTypeInfo, info, uintptr(unsafe.Pointer(&kind))); err != nil {
		return err
	}
	if int32(kind) != onnxTypeTensor {
		return fmt.Errorf("%w: %s, only tensors are", engine.ErrUnsupported, onnxTypeName(int32(kind)))
	}
	if err := a.status(apiCastTypeInfoToTensorInfo, info, uintptr(unsafe.Pointer(&tensor))); err != nil {
		return err
	}
	if err := a.status(apiGetTensorElementType, tensor, uintptr(unsafe.Pointer(&elem))); err != nil {
		return err
	}
	d.DType = engine.DType(int32(elem))
	if d.DType.Size() == 0 {
		return fmt.Errorf("%w: element type %s", engine.ErrUnsupported, elementTypeName(int32(elem)))
	}
	if err := a.status(apiGetDimensionsCount, tensor, uintptr(unsafe.Pointer(&rank))); err != nil {
		return err
	}
	d.Shape = make([]int64, rank)
	if rank > 0 {
		if err := a.status(apiGetDimensions, tensor, uintptr(unsafe.Pointer(&d.Shape[0])), rank); err != nil {
			return err
		}
	}
	for i, n := range d.Shape {
		if n < 0 {
			d.Shape[i] = -1
		}
	}
	return nil
}

// Inputs describes the model's inputs; free dimensions are -1.
func (s *Session) Inputs() []engine.TensorDesc { return cloneDescs(s.inputs) }

// Outputs describes the model's outputs; free dimensions are -1.
func (s *Session) Outputs() []engine.TensorDesc { return cloneDescs(s.outputs) }

func cloneDescs(ds []engine.TensorDesc) []engine.TensorDesc {
	out := slices.Clone(ds)
	for i := range out {
		out[i].Shape = slices.Clone(out[i].Shape)
	}
	return out
}

// Run runs the model once: inputs are handed to ONNX Runtime in place,
// outputs are copied from ONNX Runtime's buffers into outputs' Data
// (reusing its capacity). Cancelling ctx stops the run through the run
// options' terminate flag.
func (s *Session) Run(ctx context.Context, inputs, outputs []engine.Tensor) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return fmt.Errorf("ort: run: %w", engine.ErrClosed)
	}
	if len(inputs) != len(s.inputs) || len(outputs) != len(s.outputs) {
		return fmt.Errorf("ort: %w: %d inputs and %d outputs, model has %d and %d",
			engine.ErrInput, len(inputs), len(outputs), len(s.inputs), len(s.outputs))
	}
	for i, d := range s.inputs {
		if err := d.CheckEmpty(inputs[i], s.maxBatch); err != nil {
			return fmt.Errorf("ort: %w", err)
		}
	}
	for i := range inputs {
		v, err := s.bind(&s.inBound[i], "input", s.inputs[i].Name, &inputs[i])
		if err != nil {
			return err
		}
		s.inVals[i] = v
	}
	prebound := s.plan.fits(inputs)
	if prebound {
		err := s.runInto(ctx, outputs)
		clear(s.outVals) // the bound outputs' values stay in outBound
		if err == nil || ctx.Err() != nil || s.closed.Load() {
			return err
		}
	}
	// ONNX Runtime allocates the outputs (outVals are nil) and they are
	// released after they are read.
	defer s.releaseOutputs()
	if err := s.run(ctx); err != nil {
		return err
	}
	if prebound {
		// The run failed with the learned shapes and succeeds without:
		// an output whose size depends on the data. Read them from now on.
		s.plan.off = true
	}
	for i := range outputs {
		if err := s.readOutput(i, &outputs[i]); err != nil {
			return err
		}
	}
	s.plan.learn(inputs, outputs)
	return nil
}

// outputPlan remembers the output shapes of the last inputs' shapes, so
// that the next Run with inputs of the same shapes hands ONNX Runtime
// output tensors over the caller's buffers: it writes the results in
// place, which saves five calls into the library and a copy per output
// (most of the ORT engine's fixed cost per Run at batch 1).
type outputPlan struct {
	in, out [][]int64
	ok, off bool
}

// fits reports whether the learned output shapes apply to inputs.
func (p *outputPlan) fits(inputs []engine.Tensor) bool {
	if !p.ok || p.off || len(inputs) != len(p.in) {
		return false
	}
	for i := range inputs {
		if !slices.Equal(inputs[i].Shape, p.in[i]) {
			return false
		}
	}
	return true
}

// learn keeps the shapes of one Run that read its outputs.
func (p *outputPlan) learn(inputs, outputs []engine.Tensor) {
	if p.off {
		return
	}
	p.in, p.out = resize(p.in, len(inputs)), resize(p.out, len(outputs))
	for i := range inputs {
		p.in[i] = append(p.in[i][:0], inputs[i].Shape...)
	}
	for i := range outputs {
		p.out[i] = append(p.out[i][:0], outputs[i].Shape...)
	}
	p.ok = true
}

func resize(s [][]int64, n int) [][]int64 {
	if cap(s) < n {
		return make([][]int64, n)
	}
	return s[:n]
}

// runInto runs with output tensors over outputs' buffers, shaped as the
// plan learned.
func (s *Session) runInto(ctx context.Context, outputs []engine.Tensor) error {
	for i := range outputs {
		d, t := s.outputs[i], &outputs[i]
		t.Shape = append(t.Shape[:0], s.plan.out[i]...)
		if err := fitOutput(t, d); err != nil {
			return err
		}
		v, err := s.bind(&s.outBound[i], "output", d.Name, t)
		if err != nil {
			return err
		}
		s.outVals[i] = v
	}
	return s.run(ctx)
}

// bound is an OrtValue over a caller's tensor buffer, kept from one Run
// to the next: the ORT engine's callers reuse their buffers, so most Runs
// create no OrtValue at all (as a C caller that made its tensors once).
// The buffer stays pinned while bound.
type bound struct {
	val   uintptr // OrtValue*
	data  unsafe.Pointer
	size  int
	dtype engine.DType
	shape []int64
	pin   runtime.Pinner
}

// bind returns the OrtValue of a tensor over t's bytes (an input, or an
// output ONNX Runtime writes in place): b's when t is the buffer, shape
// and type it was made for, else a new one; what and name say which in
// errors.
func (s *Session) bind(b *bound, what, name string, t *engine.Tensor) (uintptr, error) {
	data := unsafe.Pointer(&s.scratch.empty[0])
	if len(t.Data) > 0 {
		data = unsafe.Pointer(&t.Data[0])
	}
	if b.val != 0 && b.data == data && b.size == len(t.Data) && b.dtype == t.DType && slices.Equal(b.shape, t.Shape) {
		return b.val, nil
	}
	s.unbind(b)
	b.pin.Pin(data)
	var shape unsafe.Pointer
	if len(t.Shape) > 0 {
		shape = unsafe.Pointer(&t.Shape[0])
	}
	if err := s.api.status(apiCreateTensorWithDataAsOrtValue, s.lib.mem, uintptr(data), uintptr(len(t.Data)),
		uintptr(shape), uintptr(len(t.Shape)), uintptr(t.DType), uintptr(unsafe.Pointer(&b.val))); err != nil {
		b.val = 0
		b.pin.Unpin()
		return 0, fmt.Errorf("ort: %s %q: %w", what, name, err)
	}
	b.data, b.size, b.dtype, b.shape = data, len(t.Data), t.DType, append(b.shape[:0], t.Shape...)
	return b.val, nil
}

// unbind releases b's OrtValue and unpins its buffer.
func (s *Session) unbind(b *bound) {
	s.api.release(apiReleaseValue, b.val)
	b.val, b.data = 0, nil
	b.pin.Unpin()
}

// run calls OrtApi::Run, setting the terminate flag if ctx is done first.
func (s *Session) run(ctx context.Context) error {
	var stop func() bool
	var fired chan struct{}
	if ctx.Done() != nil {
		fired = make(chan struct{})
		stop = context.AfterFunc(ctx, func() {
			defer close(fired)
			_ = s.api.status(apiRunOptionsSetTerminate, s.runOpts)
		})
	}
	var inVals, outVals unsafe.Pointer
	if len(s.inVals) > 0 {
		inVals = unsafe.Pointer(&s.inVals[0])
	}
	if len(s.outVals) > 0 {
		outVals = unsafe.Pointer(&s.outVals[0])
	}
	err := s.api.status(apiRun, s.handle, s.runOpts, s.inNames, uintptr(inVals), uintptr(len(s.inVals)),
		s.outNames, uintptr(len(s.outVals)), uintptr(outVals))
	if stop != nil && !stop() {
		<-fired // the callback ran: clear the flag for the next Run
		_ = s.api.status(apiRunOptionsUnsetTerminate, s.runOpts)
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case s.closed.Load():
		return fmt.Errorf("ort: run: %w", engine.ErrClosed)
	default:
		return fmt.Errorf("ort: run: %w", err)
	}
}

// readOutput copies output i into t, growing t's slices only when their
// capacity is short.
func (s *Session) readOutput(i int, t *engine.Tensor) error {
	a, d, v := s.api, s.outputs[i], s.outVals[i]
	if err := a.status(apiGetTensorTypeAndShape, v, uintptr(unsafe.Pointer(&s.scratch.info))); err != nil {
		return fmt.Errorf("ort: output %q shape: %w", d.Name, err)
	}
	err := s.readShape(t)
	a.release(apiReleaseTensorTypeAndShapeInfo, s.scratch.info)
	s.scratch.info = 0
	if err != nil {
		return fmt.Errorf("ort: output %q shape: %w", d.Name, err)
	}
	if err := fitOutput(t, d); err != nil {
		return err
	}
	size := len(t.Data)
	if size == 0 {
		return nil
	}
	if err := a.status(apiGetTensorMutableData, v, uintptr(unsafe.Pointer(&s.scratch.data))); err != nil {
		return fmt.Errorf("ort: output %q data: %w", d.Name, err)
	}
	copy(t.Data, unsafe.Slice((*byte)(uintptrToPointer(s.scratch.data)), size))
	return nil
}

// fitOutput names t after output d and sizes its Data for t.Shape,
// growing it only when its capacity is short.
func fitOutput(t *engine.Tensor, d engine.TensorDesc) error {
	n := engine.Elements(t.Shape)
	if n < 0 {
		return fmt.Errorf("ort: output %q: bad shape %v", d.Name, t.Shape)
	}
	size := n * d.DType.Size()
	t.Name, t.DType = d.Name, d.DType
	if cap(t.Data) < size {
		t.Data = make([]byte, size)
	}
	t.Data = t.Data[:size]
	return nil
}

// readShape reads the dimensions of the OrtTensorTypeAndShapeInfo in
// s.scratch.info into t.Shape.
func (s *Session) readShape(t *engine.Tensor) error {
	a := s.api
	if err := a.status(apiGetDimensionsCount, s.scratch.info, uintptr(unsafe.Pointer(&s.scratch.count))); err != nil {
		return err
	}
	rank := int(s.scratch.count)
	if cap(t.Shape) < rank {
		t.Shape = make([]int64, rank)
	}
	t.Shape = t.Shape[:rank]
	if rank == 0 {
		return nil
	}
	return a.status(apiGetDimensions, s.scratch.info, uintptr(unsafe.Pointer(&t.Shape[0])), uintptr(rank))
}

// releaseOutputs releases the output OrtValues ONNX Runtime allocated in
// one Run (when the outputs were not bound).
func (s *Session) releaseOutputs() {
	for i, v := range s.outVals {
		s.api.release(apiReleaseValue, v)
		s.outVals[i] = 0
	}
}

// Close stops a Run in flight, waits for it, and releases the session.
// It is idempotent; Run after Close returns [engine.ErrClosed].
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		if s.runOpts != 0 {
			_ = s.api.status(apiRunOptionsSetTerminate, s.runOpts)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.release()
	})
	return nil
}

// release frees everything newSession created, in reverse order. It runs
// once: from Close, or from newSession on failure.
func (s *Session) release() {
	for i := range s.inBound {
		s.unbind(&s.inBound[i])
	}
	for i := range s.outBound {
		s.unbind(&s.outBound[i])
	}
	s.api.release(apiReleaseRunOptions, s.runOpts)
	s.api.release(apiReleaseSession, s.handle)
	for _, p := range slices.Backward(s.cNames) {
		s.lib.allocFree(p)
	}
	s.runOpts, s.handle, s.inNames, s.outNames, s.cNames = 0, 0, 0, 0, nil
	s.lib.releaseRef()
}
