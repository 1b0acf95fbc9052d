package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// NNModule is the import module of WASI-NN: a WASM plugin that imports it
// can load a model into the host's inference engine (Config.NN) and run
// it there, while it keeps its own pre- and post-processing, batching and
// the sandbox (no filesystem, network or host memory). The functions and
// their memory layouts are those of the wasi-nn witx ABI
// (wasi_ephemeral_nn, the "preview1" API that wasmtime and WasmEdge
// serve), so a module written against them elsewhere runs unchanged;
// docs/abi.md lists them.
const NNModule = "wasi_ephemeral_nn"

// NN is an inference engine that backs the wasi_ephemeral_nn import
// (Config.NN). Every method is called from the goroutine of one WASM
// instance at a time; different instances call concurrently.
//
// # Errors
//
// The guest sees an error as a wasi-nn error code: [ErrNNInvalidArgument],
// [ErrNNInvalidEncoding], [ErrNNUnsupported], [ErrNNNotFound] and
// [ErrNNTooLarge] map to theirs, anything else to runtime_error. The host
// logs each error with the plugin's name, since wasi-nn has no way to
// tell the guest why.
type NN interface {
	// Load builds a graph from the guest's builder buffers (for ONNX, one
	// buffer: the model). builders are views of guest memory, valid only
	// until Load returns.
	Load(ctx context.Context, encoding NNEncoding, target NNTarget, builders [][]byte) (NNGraph, error)
}

// NNGraph is a loaded model.
type NNGraph interface {
	// NewContext makes an execution context: its own inputs, outputs
	// and run state.
	NewContext() (NNContext, error)
	// Close releases the graph; its contexts are closed first.
	Close() error
}

// NNContext runs a graph.
type NNContext interface {
	// SetInput sets input index to t. t.Data and t.Dims are views of
	// guest memory, valid only until SetInput returns.
	SetInput(index int, t NNTensor) error
	// Compute runs the graph on the inputs set. ctx carries the host's
	// deadline for the guest's call.
	Compute(ctx context.Context) error
	// Output returns output index of the last Compute, little endian:
	// the engine's buffer, which the host copies before the next call.
	Output(index int) ([]byte, error)
	// Close releases the context.
	Close() error
}

// NNTensor is a tensor a guest passes to set_input.
type NNTensor struct {
	Type NNType
	Dims []uint32
	Data []byte
}

// NNEncoding is a wasi-nn graph encoding.
type NNEncoding uint32

// The graph encodings of wasi-nn.
const (
	NNOpenVINO NNEncoding = iota
	NNONNX
	NNTensorFlow
	NNPyTorch
	NNTensorFlowLite
	NNAutodetect
)

// NNTarget is a wasi-nn execution target.
type NNTarget uint32

// The execution targets of wasi-nn.
const (
	NNCPU NNTarget = iota
	NNGPU
	NNTPU
)

// NNType is a wasi-nn tensor element type.
type NNType uint32

// The tensor element types of wasi-nn.
const (
	NNF16 NNType = iota
	NNF32
	NNF64
	NNU8
	NNI32
	NNI64
)

// Size is the size of one element in bytes, 0 for an unknown type.
func (t NNType) Size() int {
	switch t {
	case NNU8:
		return 1
	case NNF16:
		return 2
	case NNF32, NNI32:
		return 4
	case NNF64, NNI64:
		return 8
	}
	return 0
}

// Errors an NN implementation returns for the guest to see a specific
// wasi-nn error code.
var (
	ErrNNInvalidArgument = errors.New("wasi-nn: invalid argument")
	ErrNNInvalidEncoding = errors.New("wasi-nn: invalid encoding")
	ErrNNUnsupported     = errors.New("wasi-nn: unsupported operation")
	ErrNNNotFound        = errors.New("wasi-nn: not found")
	ErrNNTooLarge        = errors.New("wasi-nn: too large")
)

// nnErrno is a wasi-nn error code (nn_errno of the witx ABI).
type nnErrno uint32

const (
	nnSuccess nnErrno = iota
	nnInvalidArgument
	nnInvalidEncoding
	nnMissingMemory
	nnBusy
	nnRuntimeError
	nnUnsupported
	nnTooLarge
	nnNotFound
)

var nnErrnoNames = [...]string{"success", "invalid_argument", "invalid_encoding", "missing_memory", "busy",
	"runtime_error", "unsupported_operation", "too_large", "not_found"}

func (e nnErrno) String() string {
	if int(e) < len(nnErrnoNames) {
		return nnErrnoNames[e]
	}
	return fmt.Sprintf("errno %d", uint32(e))
}

func errnoOf(err error) nnErrno {
	switch {
	case errors.Is(err, ErrNNInvalidArgument):
		return nnInvalidArgument
	case errors.Is(err, ErrNNInvalidEncoding):
		return nnInvalidEncoding
	case errors.Is(err, ErrNNUnsupported):
		return nnUnsupported
	case errors.Is(err, ErrNNNotFound):
		return nnNotFound
	case errors.Is(err, ErrNNTooLarge):
		return nnTooLarge
	}
	return nnRuntimeError
}

// Limits on what one instance may hold.
const (
	nnMaxGraphs   = 16
	nnMaxContexts = 256
	nnMaxBuilders = 64
	nnMaxRank     = 16
	// nnTensorSize is the size of the witx tensor record: dimensions
	// (pointer, length), the type (u8, padded to 4), data (pointer,
	// length).
	nnTensorSize = 20
)

// nnHost serves one instance's wasi_ephemeral_nn calls: it checks every
// pointer and length the guest passes against its memory, owns the
// graphs and contexts the guest made (handles are indices) and turns
// errors into error codes and log lines.
type nnHost struct {
	nn  NN
	log *slog.Logger
	// deadline is when the guest's call in progress must end.
	deadline func() time.Time

	// mu is held by every call; close takes it only when free, so that
	// an engine stuck in a call is abandoned rather than freed under it.
	mu       sync.Mutex
	graphs   []NNGraph
	contexts []nnContextSlot
	closed   bool
}

type nnContextSlot struct {
	c     NNContext
	graph int
}

// fail logs why a call failed and returns its error code.
func (h *nnHost) fail(call string, code nnErrno, format string, args ...any) uint32 {
	h.log.Warn("wasi-nn call failed", "call", call, "errno", code.String(), "err", fmt.Sprintf(format, args...))
	return uint32(code)
}

// errNoEngine is load's answer on a host without an engine, which a
// guest may well expect (it then runs the model itself): an info line.
const errNoEngine = "this host has no wasi-nn engine configured"

func (h *nnHost) failErr(call string, err error) uint32 {
	return h.fail(call, errnoOf(err), "%v", err)
}

// read returns n bytes of guest memory at ptr, or false when any of them
// is outside it.
func read(mem api.Memory, ptr, n uint32) ([]byte, bool) {
	if mem == nil {
		return nil, false
	}
	if n == 0 {
		return nil, uint64(ptr) <= uint64(mem.Size())
	}
	return mem.Read(ptr, n)
}

func (h *nnHost) load(ctx context.Context, mem api.Memory, builderPtr, builderLen, encoding, target, graphOut uint32) uint32 {
	const call = "load"
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.nn == nil {
		h.log.Info("wasi-nn call failed", "call", call, "errno", nnUnsupported.String(), "err", errNoEngine)
		return uint32(nnUnsupported)
	}
	if h.closed {
		return h.fail(call, nnBusy, "the plugin is closing")
	}
	if builderLen == 0 || builderLen > nnMaxBuilders {
		return h.fail(call, nnInvalidArgument, "%d graph builders: want 1 to %d", builderLen, nnMaxBuilders)
	}
	list, ok := read(mem, builderPtr, builderLen*8)
	if !ok {
		return h.fail(call, nnInvalidArgument, "graph builder array of %d entries at 0x%x is outside guest memory", builderLen, builderPtr)
	}
	if _, ok := read(mem, graphOut, 4); !ok {
		return h.fail(call, nnInvalidArgument, "graph result pointer 0x%x is outside guest memory", graphOut)
	}
	if len(h.graphs) >= nnMaxGraphs && !h.hasFreeGraph() {
		return h.fail(call, nnBusy, "the plugin already holds %d graphs", nnMaxGraphs)
	}
	builders := make([][]byte, builderLen)
	for i := range builders {
		p, n := le32(list[i*8:]), le32(list[i*8+4:])
		b, ok := read(mem, p, n)
		if !ok {
			return h.fail(call, nnInvalidArgument, "graph builder %d (%d bytes at 0x%x) is outside guest memory", i, n, p)
		}
		builders[i] = b
	}
	g, err := h.nn.Load(ctx, NNEncoding(encoding), NNTarget(target), builders)
	if err != nil {
		return h.failErr(call, err)
	}
	idx := h.putGraph(g)
	if !mem.WriteUint32Le(graphOut, uint32(idx)) { // checked above; memory cannot shrink
		return h.fail(call, nnInvalidArgument, "graph result pointer 0x%x is outside guest memory", graphOut)
	}
	return uint32(nnSuccess)
}

func (h *nnHost) hasFreeGraph() bool {
	for _, g := range h.graphs {
		if g == nil {
			return true
		}
	}
	return false
}

func (h *nnHost) putGraph(g NNGraph) int {
	for i, old := range h.graphs {
		if old == nil {
			h.graphs[i] = g
			return i
		}
	}
	h.graphs = append(h.graphs, g)
	return len(h.graphs) - 1
}

func (h *nnHost) initContext(mem api.Memory, graph, ctxOut uint32) uint32 {
	const call = "init_execution_context"
	h.mu.Lock()
	defer h.mu.Unlock()
	if int64(graph) >= int64(len(h.graphs)) || h.graphs[graph] == nil {
		return h.fail(call, nnInvalidArgument, "graph %d was not loaded", graph)
	}
	if _, ok := read(mem, ctxOut, 4); !ok {
		return h.fail(call, nnInvalidArgument, "context result pointer 0x%x is outside guest memory", ctxOut)
	}
	slot := -1
	for i, s := range h.contexts {
		if s.c == nil {
			slot = i
			break
		}
	}
	if slot < 0 && len(h.contexts) >= nnMaxContexts {
		return h.fail(call, nnBusy, "the plugin already holds %d execution contexts", nnMaxContexts)
	}
	c, err := h.graphs[graph].NewContext()
	if err != nil {
		return h.failErr(call, err)
	}
	if slot < 0 {
		h.contexts = append(h.contexts, nnContextSlot{})
		slot = len(h.contexts) - 1
	}
	h.contexts[slot] = nnContextSlot{c: c, graph: int(graph)}
	mem.WriteUint32Le(ctxOut, uint32(slot))
	return uint32(nnSuccess)
}

// context returns the context of handle c, or nil.
func (h *nnHost) context(c uint32) NNContext {
	if int64(c) >= int64(len(h.contexts)) {
		return nil
	}
	return h.contexts[c].c
}

func (h *nnHost) setInput(mem api.Memory, ctxh, index, tensorPtr uint32) uint32 {
	const call = "set_input"
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.context(ctxh)
	if c == nil {
		return h.fail(call, nnInvalidArgument, "execution context %d does not exist", ctxh)
	}
	rec, ok := read(mem, tensorPtr, nnTensorSize)
	if !ok {
		return h.fail(call, nnInvalidArgument, "tensor record at 0x%x is outside guest memory", tensorPtr)
	}
	dimsPtr, rank, typ, dataPtr, dataLen := le32(rec), le32(rec[4:]), NNType(rec[8]), le32(rec[12:]), le32(rec[16:])
	if typ.Size() == 0 {
		return h.fail(call, nnInvalidArgument, "tensor type %d is not one of wasi-nn's", typ)
	}
	if rank > nnMaxRank {
		return h.fail(call, nnInvalidArgument, "tensor of rank %d: at most %d", rank, nnMaxRank)
	}
	dimBytes, ok := read(mem, dimsPtr, rank*4)
	if !ok {
		return h.fail(call, nnInvalidArgument, "tensor dimensions (%d at 0x%x) are outside guest memory", rank, dimsPtr)
	}
	dims := make([]uint32, rank)
	want := uint64(typ.Size())
	for i := range dims {
		dims[i] = le32(dimBytes[i*4:])
		want *= uint64(dims[i])
		if want > math.MaxUint32 {
			return h.fail(call, nnTooLarge, "tensor of dimensions %v is over 4 GiB", dims[:i+1])
		}
	}
	if want != uint64(dataLen) {
		return h.fail(call, nnInvalidArgument, "tensor of dimensions %v and %d-byte elements needs %d bytes of data, not %d",
			dims, typ.Size(), want, dataLen)
	}
	data, ok := read(mem, dataPtr, dataLen)
	if !ok {
		return h.fail(call, nnInvalidArgument, "tensor data (%d bytes at 0x%x) is outside guest memory", dataLen, dataPtr)
	}
	if err := c.SetInput(int(index), NNTensor{Type: typ, Dims: dims, Data: data}); err != nil {
		return h.failErr(call, err)
	}
	return uint32(nnSuccess)
}

func (h *nnHost) compute(ctx context.Context, ctxh uint32) uint32 {
	const call = "compute"
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.context(ctxh)
	if c == nil {
		return h.fail(call, nnInvalidArgument, "execution context %d does not exist", ctxh)
	}
	if h.deadline != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, h.deadline())
		defer cancel()
	}
	if err := c.Compute(ctx); err != nil {
		return h.failErr(call, err)
	}
	return uint32(nnSuccess)
}

func (h *nnHost) getOutput(mem api.Memory, ctxh, index, outPtr, outMax, writtenPtr uint32) uint32 {
	const call = "get_output"
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.context(ctxh)
	if c == nil {
		return h.fail(call, nnInvalidArgument, "execution context %d does not exist", ctxh)
	}
	out, ok := read(mem, outPtr, outMax)
	if !ok {
		return h.fail(call, nnInvalidArgument, "output buffer (%d bytes at 0x%x) is outside guest memory", outMax, outPtr)
	}
	if _, ok := read(mem, writtenPtr, 4); !ok {
		return h.fail(call, nnInvalidArgument, "bytes-written pointer 0x%x is outside guest memory", writtenPtr)
	}
	data, err := c.Output(int(index))
	if err != nil {
		return h.failErr(call, err)
	}
	if uint64(len(data)) > uint64(outMax) {
		return h.fail(call, nnTooLarge, "output %d has %d bytes, the guest's buffer %d", index, len(data), outMax)
	}
	copy(out, data)
	mem.WriteUint32Le(writtenPtr, uint32(len(data)))
	return uint32(nnSuccess)
}

// close releases every context and graph, unless a call is in progress
// (an engine stuck in compute): then they are abandoned, with a log line.
func (h *nnHost) close() {
	if !h.mu.TryLock() {
		h.log.Warn("wasi-nn: a call is still running at close; its graphs are abandoned")
		return
	}
	defer h.mu.Unlock()
	h.closed = true
	for _, s := range h.contexts {
		if s.c != nil {
			if err := s.c.Close(); err != nil {
				h.log.Warn("wasi-nn: close an execution context", "err", err)
			}
		}
	}
	for _, g := range h.graphs {
		if g != nil {
			if err := g.Close(); err != nil {
				h.log.Warn("wasi-nn: close a graph", "err", err)
			}
		}
	}
	h.contexts, h.graphs = nil, nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// nnImports lists the functions of wasi_ephemeral_nn and their
// signatures (all i32), for the host module and checkModule.
var nnImports = map[string]struct{ params, results int }{
	"load":                   {5, 1},
	"load_by_name":           {3, 1},
	"init_execution_context": {2, 1},
	"set_input":              {3, 1},
	"compute":                {1, 1},
	"get_output":             {5, 1},
}

// instantiateNN provides wasi_ephemeral_nn to the runtime's guests: each
// call goes to the calling instance's nnHost.
func instantiateNN(ctx context.Context, rt wazero.Runtime, host func(context.Context) *nnHost) error {
	i32s := func(n int) []api.ValueType {
		ts := make([]api.ValueType, n)
		for i := range ts {
			ts[i] = api.ValueTypeI32
		}
		return ts
	}
	fns := map[string]api.GoModuleFunc{
		"load": func(ctx context.Context, m api.Module, s []uint64) {
			s[0] = uint64(host(ctx).load(ctx, m.Memory(), uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3]), uint32(s[4])))
		},
		"load_by_name": func(ctx context.Context, _ api.Module, s []uint64) {
			s[0] = uint64(host(ctx).fail("load_by_name", nnNotFound, "this host has no named graphs: load the model's bytes with load"))
		},
		"init_execution_context": func(ctx context.Context, m api.Module, s []uint64) {
			s[0] = uint64(host(ctx).initContext(m.Memory(), uint32(s[0]), uint32(s[1])))
		},
		"set_input": func(ctx context.Context, m api.Module, s []uint64) {
			s[0] = uint64(host(ctx).setInput(m.Memory(), uint32(s[0]), uint32(s[1]), uint32(s[2])))
		},
		"compute": func(ctx context.Context, _ api.Module, s []uint64) {
			s[0] = uint64(host(ctx).compute(ctx, uint32(s[0])))
		},
		"get_output": func(ctx context.Context, m api.Module, s []uint64) {
			s[0] = uint64(host(ctx).getOutput(m.Memory(), uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3]), uint32(s[4])))
		},
	}
	hb := rt.NewHostModuleBuilder(NNModule)
	for name, fn := range fns {
		sig := nnImports[name]
		hb.NewFunctionBuilder().WithGoModuleFunction(fn, i32s(sig.params), i32s(sig.results)).Export(name)
	}
	_, err := hb.Instantiate(ctx)
	return err
}

// newNNHost makes an instance's wasi-nn server: calls may run until the
// deadline of the guest's call in progress.
func (b *wasmBackend) newNNHost(in *wasmInstance) *nnHost {
	return &nnHost{nn: b.cfg.NN, log: in.log, deadline: func() time.Time {
		return b.epoch.Add(time.Duration(in.callStart.Load()) + b.cfg.CallTimeout)
	}}
}

func nnHostOf(ctx context.Context) *nnHost {
	if in := instanceOf(ctx); in != nil {
		return in.nn
	}
	return &nnHost{log: slog.New(slog.DiscardHandler)}
}

// allI32 reports whether ts is n i32s.
func allI32(ts []api.ValueType, n int) bool {
	if len(ts) != n {
		return false
	}
	for _, t := range ts {
		if t != api.ValueTypeI32 {
			return false
		}
	}
	return true
}
