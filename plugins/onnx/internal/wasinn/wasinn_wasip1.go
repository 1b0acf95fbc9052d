//go:build wasip1

package wasinn

import (
	"context"
	"fmt"
	"runtime"
	"structs"
	"sync"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

//go:wasmimport wasi_ephemeral_nn load
func nnLoad(builders unsafe.Pointer, n, encoding, target uint32, graphOut unsafe.Pointer) uint32

//go:wasmimport wasi_ephemeral_nn init_execution_context
func nnInit(graph uint32, ctxOut unsafe.Pointer) uint32

//go:wasmimport wasi_ephemeral_nn set_input
func nnSetInput(ctx, index uint32, tensor unsafe.Pointer) uint32

//go:wasmimport wasi_ephemeral_nn compute
func nnCompute(ctx uint32) uint32

//go:wasmimport wasi_ephemeral_nn get_output
func nnGetOutput(ctx, index uint32, out unsafe.Pointer, outMax uint32, written unsafe.Pointer) uint32

// wasi-nn's codes and enums that the engine uses.
const (
	encodingONNX = 1
	targetCPU    = 0

	errnoUnsupported = 6
	errnoTooLarge    = 7
)

var errnoNames = [...]string{"success", "invalid_argument", "invalid_encoding", "missing_memory", "busy",
	"runtime_error", "unsupported_operation", "too_large", "not_found"}

// nnError is a wasi-nn call that failed; the host's log says why.
type nnError struct {
	call  string
	errno uint32
}

func (e *nnError) Error() string {
	name := fmt.Sprintf("error %d", e.errno)
	if int(e.errno) < len(errnoNames) {
		name = errnoNames[e.errno]
	}
	return fmt.Sprintf("wasi-nn %s: %s (the host logs why)", e.call, name)
}

// tensorTypes maps the engines' types onto wasi-nn's tensor_type.
var tensorTypes = map[engine.DType]byte{engine.Float32: 1, engine.Uint8: 3, engine.Int32: 4, engine.Int64: 5}

// Engine runs models on the host's wasi-nn engine.
type Engine struct{}

var _ engine.Engine = (*Engine)(nil)

// New returns the wasinn engine.
func New() *Engine { return &Engine{} }

// Name implements engine.Engine.
func (*Engine) Name() string { return Name }

// Load implements engine.Engine: the model goes to the host as one ONNX
// graph builder, and the session gets an execution context of its own.
// Options.Threads and Extra are the host's business (host.wasi_nn_*).
//
// # Errors
//
// [engine.ErrUnavailable] when the host cannot run the model
// (unsupported_operation: no wasi-nn engine, or one that lacks an
// operator), [engine.ErrInvalidModel] when the host rejects it.
func (*Engine) Load(ctx context.Context, model []byte, opts engine.Options) (engine.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ins, outs, err := describe(model)
	if err != nil {
		return nil, err
	}
	for _, d := range ins {
		if _, ok := tensorTypes[d.DType]; !ok {
			return nil, fmt.Errorf("%w: input %v: wasi-nn has no such tensor type", engine.ErrUnsupported, d)
		}
	}
	var builder [2]uint32
	builder[0], builder[1] = uint32(uintptr(unsafe.Pointer(unsafe.SliceData(model)))), uint32(len(model))
	var graph, execCtx uint32
	e := nnLoad(unsafe.Pointer(&builder), 1, encodingONNX, targetCPU, unsafe.Pointer(&graph))
	runtime.KeepAlive(model)
	switch {
	case e == errnoUnsupported:
		return nil, fmt.Errorf("%w: %w", engine.ErrUnavailable, &nnError{"load", e})
	case e != 0:
		return nil, fmt.Errorf("%w: %w", engine.ErrInvalidModel, &nnError{"load", e})
	}
	if e := nnInit(graph, unsafe.Pointer(&execCtx)); e != 0 {
		return nil, &nnError{"init_execution_context", e}
	}
	types := make([]uint32, len(ins))
	for i, d := range ins {
		types[i] = uint32(tensorTypes[d.DType])
	}
	return &session{ctx: execCtx, ins: ins, outs: outs, maxBatch: opts.MaxBatch, types: types,
		shapes: make([][]int64, len(outs))}, nil
}

// session is one wasi-nn execution context.
type session struct {
	ctx       uint32
	ins, outs []engine.TensorDesc
	maxBatch  int
	// types are the inputs' wasi-nn tensor types.
	types []uint32
	// shapes are scratch for the outputs' shapes, which Run copies into
	// the caller's (as it copies the data): a Run allocates nothing.
	shapes [][]int64
	dims   []uint32
	buf    []byte
	// rec and written are what set_input reads and get_output writes,
	// here rather than on the stack, which the host's calls would move to
	// the heap.
	rec       tensor
	written   uint32
	closed    bool
	closeOnce sync.Once
}

func (s *session) Inputs() []engine.TensorDesc  { return s.ins }
func (s *session) Outputs() []engine.TensorDesc { return s.outs }

// tensor is the witx tensor record set_input reads: the type is a u8
// followed by padding, which a little-endian uint32 writes.
type tensor struct {
	_          structs.HostLayout
	dims, rank uint32
	typ        uint32 // a u8 and padding
	data, len  uint32
}

// Run implements engine.Session: each input by set_input, compute, and
// each output by get_output into a buffer that grows while the host
// answers too_large.
func (s *session) Run(ctx context.Context, inputs, outputs []engine.Tensor) error {
	if s.closed {
		return engine.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(inputs) != len(s.ins) || len(outputs) != len(s.outs) {
		return fmt.Errorf("%w: %d inputs and %d outputs for a model with %d and %d", engine.ErrInput,
			len(inputs), len(outputs), len(s.ins), len(s.outs))
	}
	batch := 1
	for i, in := range inputs {
		d := s.ins[i]
		if in.DType != d.DType || len(in.Shape) != len(d.Shape) || len(in.Data) != engine.Elements(in.Shape)*d.DType.Size() {
			return fmt.Errorf("%w: input %d: %v %v with %d bytes for %v", engine.ErrInput, i, in.DType, in.Shape, len(in.Data), d)
		}
		if len(in.Shape) > 0 {
			batch = int(in.Shape[0])
		}
		s.dims = s.dims[:0]
		for _, v := range in.Shape {
			s.dims = append(s.dims, uint32(v))
		}
		s.rec = tensor{dims: addr(s.dims), rank: uint32(len(s.dims)), typ: s.types[i],
			data: uint32(uintptr(unsafe.Pointer(unsafe.SliceData(in.Data)))), len: uint32(len(in.Data))}
		e := nnSetInput(s.ctx, uint32(i), unsafe.Pointer(&s.rec))
		runtime.KeepAlive(in.Data)
		if e != 0 {
			return fmt.Errorf("%w: %w", engine.ErrInput, &nnError{"set_input", e})
		}
	}
	if e := nnCompute(s.ctx); e != 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		return &nnError{"compute", e}
	}
	for j := range outputs {
		data, err := s.output(uint32(j))
		if err != nil {
			return err
		}
		shape, err := outputShape(s.shapes[j], s.outs[j], len(data), batch)
		if err != nil {
			return err
		}
		s.shapes[j] = shape
		o := &outputs[j]
		o.Name, o.DType, o.Shape = s.outs[j].Name, s.outs[j].DType, append(o.Shape[:0], shape...)
		o.Data = append(o.Data[:0], data...)
	}
	return nil
}

// output reads output j into the session's buffer.
func (s *session) output(j uint32) ([]byte, error) {
	if len(s.buf) == 0 {
		s.buf = make([]byte, 64<<10)
	}
	for {
		e := nnGetOutput(s.ctx, j, unsafe.Pointer(unsafe.SliceData(s.buf)), uint32(len(s.buf)), unsafe.Pointer(&s.written))
		switch {
		case e == 0:
			return s.buf[:s.written], nil
		case e == errnoTooLarge && len(s.buf) < 1<<30:
			s.buf = make([]byte, 4*len(s.buf))
		default:
			return nil, &nnError{"get_output", e}
		}
	}
}

// Close implements engine.Session. wasi-nn has no call to release a
// context: the host frees it with the instance.
func (s *session) Close() error {
	s.closeOnce.Do(func() { s.closed = true })
	return nil
}

func addr(s []uint32) uint32 {
	if len(s) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(s))))
}
