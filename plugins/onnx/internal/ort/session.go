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
	level    uintptr // GraphOptimizationLevel
	maxBatch int
}

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

	mu      sync.Mutex // serializes Run and the release in Close; guards the fields below
	inVals  []uintptr  // OrtValue* per input, live during one Run
	outVals []uintptr  // OrtValue* per output, live during one Run
	pinner  runtime.Pinner
	scratch struct {
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
	for _, o := range []struct {
		name string
		i    apiIndex
		v    uintptr
	}{
		{"intra-op threads", apiSetIntraOpNumThreads, uintptr(cfg.threads)},
		{"inter-op threads", apiSetInterOpNumThreads, 1},
		{"execution mode", apiSetSessionExecutionMode, executionSeq},
		{"graph optimization level", apiSetSessionGraphOptimizationLevel, cfg.level},
	} {
		if err := a.status(o.i, opts, o.v); err != nil {
			return nil, fmt.Errorf("set %s: %w", o.name, err)
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
	s.inVals = make([]uintptr, len(s.inputs))
	s.outVals = make([]uintptr, len(s.outputs))
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
		if err := d.Check(inputs[i], s.maxBatch); err != nil {
			return fmt.Errorf("ort: %w", err)
		}
	}
	defer s.releaseValues()
	for i := range inputs {
		if err := s.bindInput(i, &inputs[i]); err != nil {
			return err
		}
	}
	if err := s.run(ctx); err != nil {
		return err
	}
	for i := range outputs {
		if err := s.readOutput(i, &outputs[i]); err != nil {
			return err
		}
	}
	return nil
}

// bindInput creates the OrtValue of input i over t's bytes, pinned until
// releaseValues.
func (s *Session) bindInput(i int, t *engine.Tensor) error {
	data := unsafe.Pointer(&s.scratch.empty[0])
	if len(t.Data) > 0 {
		data = unsafe.Pointer(&t.Data[0])
	}
	s.pinner.Pin(data)
	var shape unsafe.Pointer
	if len(t.Shape) > 0 {
		shape = unsafe.Pointer(&t.Shape[0])
	}
	if err := s.api.status(apiCreateTensorWithDataAsOrtValue, s.lib.mem, uintptr(data), uintptr(len(t.Data)),
		uintptr(shape), uintptr(len(t.Shape)), uintptr(t.DType), uintptr(unsafe.Pointer(&s.inVals[i]))); err != nil {
		return fmt.Errorf("ort: input %q: %w", s.inputs[i].Name, err)
	}
	return nil
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
	if size == 0 {
		return nil
	}
	if err := a.status(apiGetTensorMutableData, v, uintptr(unsafe.Pointer(&s.scratch.data))); err != nil {
		return fmt.Errorf("ort: output %q data: %w", d.Name, err)
	}
	copy(t.Data, unsafe.Slice((*byte)(uintptrToPointer(s.scratch.data)), size))
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

// releaseValues releases the OrtValues of one Run and unpins its inputs.
func (s *Session) releaseValues() {
	for i, v := range s.inVals {
		s.api.release(apiReleaseValue, v)
		s.inVals[i] = 0
	}
	for i, v := range s.outVals {
		s.api.release(apiReleaseValue, v)
		s.outVals[i] = 0
	}
	s.pinner.Unpin()
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
	s.api.release(apiReleaseRunOptions, s.runOpts)
	s.api.release(apiReleaseSession, s.handle)
	for _, p := range slices.Backward(s.cNames) {
		s.lib.allocFree(p)
	}
	s.runOpts, s.handle, s.inNames, s.outNames, s.cNames = 0, 0, 0, 0, nil
	s.lib.releaseRef()
}
