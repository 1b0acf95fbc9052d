package host

import (
	"context"
	"encoding/binary"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mlperf-host/mlperf-host/abi"
)

var nnGuest = sync.OnceValues(func() ([]byte, error) { return buildGuest("nnguest", "./testdata/nnguest") })

// scaleNN is a fake inference engine: an "ONNX model" is one float32, and
// output 0 is input 0 times it. A scale of -1 computes until the
// deadline. It records what it was asked.
type scaleNN struct {
	mu       sync.Mutex
	loads    int
	computes []nnCompute
}

type nnCompute struct {
	dims []uint32
	err  error
}

type scaleGraph struct {
	nn    *scaleNN
	scale float32
}

type scaleContext struct {
	g       *scaleGraph
	in, out []byte
	dims    []uint32
}

func (n *scaleNN) Load(_ context.Context, enc NNEncoding, target NNTarget, builders [][]byte) (NNGraph, error) {
	n.mu.Lock()
	n.loads++
	n.mu.Unlock()
	switch {
	case enc != NNONNX:
		return nil, ErrNNInvalidEncoding
	case target != NNCPU:
		return nil, ErrNNUnsupported
	case len(builders) != 1 || len(builders[0]) != 4:
		return nil, ErrNNInvalidArgument
	}
	return &scaleGraph{nn: n, scale: math.Float32frombits(binary.LittleEndian.Uint32(builders[0]))}, nil
}

func (n *scaleNN) computed() []nnCompute {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]nnCompute(nil), n.computes...)
}

func (g *scaleGraph) NewContext() (NNContext, error) { return &scaleContext{g: g}, nil }
func (g *scaleGraph) Close() error                   { return nil }

func (c *scaleContext) SetInput(index int, t NNTensor) error {
	if index != 0 || t.Type != NNF32 {
		return ErrNNInvalidArgument
	}
	c.in, c.dims = append(c.in[:0], t.Data...), append(c.dims[:0], t.Dims...)
	return nil
}

func (c *scaleContext) Compute(ctx context.Context) error {
	var err error
	if c.g.scale == -1 {
		<-ctx.Done()
		err = ctx.Err()
	}
	c.g.nn.mu.Lock()
	c.g.nn.computes = append(c.g.nn.computes, nnCompute{dims: append([]uint32(nil), c.dims...), err: err})
	c.g.nn.mu.Unlock()
	if err != nil {
		return err
	}
	c.out = c.out[:0]
	for i := 0; i+4 <= len(c.in); i += 4 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(c.in[i:])) * c.g.scale
		c.out = binary.LittleEndian.AppendUint32(c.out, math.Float32bits(v))
	}
	return nil
}

func (c *scaleContext) Output(index int) ([]byte, error) {
	if index != 0 {
		return nil, ErrNNNotFound
	}
	return c.out, nil
}

func (c *scaleContext) Close() error { return nil }

func f32s(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func openNNGuest(t *testing.T, cfg Config) Backend {
	t.Helper()
	m, err := nnGuest()
	require.NoError(t, err, "build the wasi-nn guest")
	cfg.CompilationCacheDir = wasmCache()
	b, err := OpenWASM(t.Context(), "nnguest", m, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// TestNNGuest runs the wasi-nn guest through the host: its batch of
// samples goes to the engine as one tensor, and each sample gets its part
// of the output.
func TestNNGuest(t *testing.T) {
	t.Parallel()
	nn := &scaleNN{}
	b := openNNGuest(t, Config{Instances: 1, NN: nn})
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Load(t.Context(), Model{Bytes: f32s(2)}))
	require.NoError(t, b.LoadSamples(t.Context(), []Sample{
		{Index: 0, Data: f32s(1, 2, 3)}, {Index: 1, Data: f32s(4, 5, 6)}, {Index: 2, Data: f32s(-1, 0, 0.5)},
	}))
	require.NoError(t, b.Issue(t.Context(), records(10, 0, 3)))
	rec.wait(t, 3)
	for i, want := range [][]byte{f32s(2, 4, 6), f32s(8, 10, 12), f32s(-2, 0, 1)} {
		c, ok := rec.get(10 + uint64(i))
		require.True(t, ok)
		assert.Equal(t, want, c.Data, "sample %d", i)
	}
	assert.Equal(t, []nnCompute{{dims: []uint32{3, 3}}}, nn.computed(), "one compute for the whole batch")
	require.NoError(t, b.Close())
}

// TestNNGuestWithoutEngine: a host with no wasi-nn engine still runs a
// guest that imports it; its load fails with an error the guest reports.
func TestNNGuestWithoutEngine(t *testing.T) {
	t.Parallel()
	b := openNNGuest(t, Config{Instances: 1})
	err := b.Load(t.Context(), Model{Bytes: f32s(2)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wasi-nn load: error 6") // unsupported_operation
}

// TestNNComputeDeadline: through the host, an engine that would compute
// forever is stopped by the deadline of the guest's call (the host's
// CallTimeout) and the sample fails. (On a starved machine the watchdog
// may stop the guest before it reaches compute: the sample fails the same
// way.)
func TestNNComputeDeadline(t *testing.T) {
	t.Parallel()
	nn := &scaleNN{}
	b := openNNGuest(t, Config{Instances: 1, NN: nn, CallTimeout: 2 * time.Second})
	rec := newRecorder()
	b.SetHandler(rec)
	require.NoError(t, b.Load(t.Context(), Model{Bytes: f32s(-1)}))
	require.NoError(t, b.LoadSamples(t.Context(), []Sample{{Index: 0, Data: f32s(1)}}))
	require.NoError(t, b.Issue(t.Context(), records(1, 0, 1)))
	rec.wait(t, 1)
	c, _ := rec.get(1)
	assert.NotEqual(t, abi.OK, c.Status)
	for _, comp := range nn.computed() {
		assert.ErrorIs(t, comp.err, context.DeadlineExceeded)
	}
}

// TestNNComputeStopsAtDeadline: compute hands the engine the deadline of
// the guest's call, and an engine stopped by it fails the call.
func TestNNComputeStopsAtDeadline(t *testing.T) {
	t.Parallel()
	h, mem, nn := nnSetup(t)
	require.True(t, mem.Write(memModel, f32s(-1)))
	h.deadline = func() time.Time { return time.Now().Add(10 * time.Millisecond) }
	ctx := t.Context()
	require.Equal(t, uint32(nnSuccess), h.load(ctx, mem, memBuilders, 1, uint32(NNONNX), uint32(NNCPU), memOut))
	require.Equal(t, uint32(nnSuccess), h.initContext(mem, 0, memOut))
	require.Equal(t, uint32(nnSuccess), h.setInput(mem, 0, 0, memTensor))
	assert.Equal(t, uint32(nnRuntimeError), h.compute(ctx, 0))
	require.Len(t, nn.computed(), 1)
	assert.ErrorIs(t, nn.computed()[0].err, context.DeadlineExceeded)
}

// nnMemory is a guest memory for calling the wasi-nn functions directly:
// a module with one page and nothing else.
func nnMemory(t testing.TB) api.Memory {
	t.Helper()
	module := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
		0x05, 0x03, 0x01, 0x00, 0x01, // memory: min 1 page
		0x07, 0x0a, 0x01, 0x06, 'm', 'e', 'm', 'o', 'r', 'y', 0x02, 0x00} // export "memory"
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	m, err := rt.Instantiate(ctx, module)
	require.NoError(t, err)
	return m.Memory()
}

// Layout of nnMemory for the range tests: a valid model and builder
// array, a tensor of 2×2 float32 and an output buffer.
const (
	memModel    = 0x100 // 4 bytes: the scale
	memBuilders = 0x200 // one builder: (memModel, 4)
	memOut      = 0x300 // 4-byte results
	memDims     = 0x400 // 2, 2
	memData     = 0x500 // 16 bytes
	memTensor   = 0x600 // the tensor record
	memBuf      = 0x700 // output buffer, 64 bytes
	memWritten  = 0x800
	memEnd      = 0x10000 // one page
	far         = 0xffff_fff0
)

func nnSetup(t testing.TB) (*nnHost, api.Memory, *scaleNN) {
	t.Helper()
	mem := nnMemory(t)
	put := func(at uint32, b []byte) { require.True(t, mem.Write(at, b)) }
	put(memModel, f32s(3))
	put(memBuilders, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, memModel), 4))
	put(memDims, []byte{2, 0, 0, 0, 2, 0, 0, 0})
	put(memData, f32s(1, 2, 3, 4))
	tensor := make([]byte, nnTensorSize)
	binary.LittleEndian.PutUint32(tensor[0:], memDims)
	binary.LittleEndian.PutUint32(tensor[4:], 2)
	tensor[8] = byte(NNF32)
	binary.LittleEndian.PutUint32(tensor[12:], memData)
	binary.LittleEndian.PutUint32(tensor[16:], 16)
	put(memTensor, tensor)
	nn := &scaleNN{}
	return &nnHost{nn: nn, log: slog.New(slog.DiscardHandler)}, mem, nn
}

// TestNNCalls walks the functions with valid arguments, then checks that
// every out-of-range pointer or length, bad handle and bad value fails
// with its error code, before the engine is asked anything.
func TestNNCalls(t *testing.T) {
	t.Parallel()
	h, mem, nn := nnSetup(t)
	ctx := t.Context()
	require.Equal(t, uint32(nnSuccess), h.load(ctx, mem, memBuilders, 1, uint32(NNONNX), uint32(NNCPU), memOut))
	g, _ := mem.ReadUint32Le(memOut)
	require.Equal(t, uint32(nnSuccess), h.initContext(mem, g, memOut))
	c, _ := mem.ReadUint32Le(memOut)
	require.Equal(t, uint32(nnSuccess), h.setInput(mem, c, 0, memTensor))
	require.Equal(t, uint32(nnSuccess), h.compute(ctx, c))
	require.Equal(t, uint32(nnSuccess), h.getOutput(mem, c, 0, memBuf, 64, memWritten))
	n, _ := mem.ReadUint32Le(memWritten)
	out, _ := mem.Read(memBuf, n)
	assert.Equal(t, f32s(3, 6, 9, 12), out)

	badTensor := func(edit func(rec []byte)) uint32 {
		rec, _ := mem.Read(memTensor, nnTensorSize)
		saved := append([]byte(nil), rec...)
		edit(rec)
		defer copy(rec, saved)
		return h.setInput(mem, c, 0, memTensor)
	}
	putU32 := func(off int, v uint32) func([]byte) {
		return func(rec []byte) { binary.LittleEndian.PutUint32(rec[off:], v) }
	}
	tests := []struct {
		name string
		call func() uint32
		want nnErrno
	}{
		{"load: builder array outside", func() uint32 { return h.load(ctx, mem, far, 1, 1, 0, memOut) }, nnInvalidArgument},
		{"load: builder array past the end", func() uint32 { return h.load(ctx, mem, memEnd-4, 1, 1, 0, memOut) }, nnInvalidArgument},
		{"load: no builders", func() uint32 { return h.load(ctx, mem, memBuilders, 0, 1, 0, memOut) }, nnInvalidArgument},
		{"load: too many builders", func() uint32 { return h.load(ctx, mem, memBuilders, 1<<20, 1, 0, memOut) }, nnInvalidArgument},
		{"load: result outside", func() uint32 { return h.load(ctx, mem, memBuilders, 1, 1, 0, far) }, nnInvalidArgument},
		{"load: builder bytes outside", func() uint32 {
			mem.WriteUint32Le(memBuilders+16, memEnd-2)
			mem.WriteUint32Le(memBuilders+20, 4)
			return h.load(ctx, mem, memBuilders+16, 1, 1, 0, memOut)
		}, nnInvalidArgument},
		{"load: encoding", func() uint32 { return h.load(ctx, mem, memBuilders, 1, uint32(NNTensorFlow), 0, memOut) }, nnInvalidEncoding},
		{"load: target", func() uint32 { return h.load(ctx, mem, memBuilders, 1, 1, uint32(NNGPU), memOut) }, nnUnsupported},
		{"init: unknown graph", func() uint32 { return h.initContext(mem, 7, memOut) }, nnInvalidArgument},
		{"init: result outside", func() uint32 { return h.initContext(mem, g, far) }, nnInvalidArgument},
		{"set_input: unknown context", func() uint32 { return h.setInput(mem, 99, 0, memTensor) }, nnInvalidArgument},
		{"set_input: record outside", func() uint32 { return h.setInput(mem, c, 0, memEnd-8) }, nnInvalidArgument},
		{"set_input: dims outside", func() uint32 { return badTensor(putU32(0, far)) }, nnInvalidArgument},
		{"set_input: rank too high", func() uint32 { return badTensor(putU32(4, 1000)) }, nnInvalidArgument},
		{"set_input: data outside", func() uint32 { return badTensor(putU32(12, far)) }, nnInvalidArgument},
		{"set_input: data shorter than dims", func() uint32 { return badTensor(putU32(16, 12)) }, nnInvalidArgument},
		{"set_input: unknown type", func() uint32 { return badTensor(func(rec []byte) { rec[8] = 9 }) }, nnInvalidArgument},
		{"set_input: dims over 4 GiB", func() uint32 {
			mem.WriteUint32Le(memDims+8, 1<<20)
			mem.WriteUint32Le(memDims+12, 1<<20)
			return badTensor(putU32(0, memDims+8))
		}, nnTooLarge},
		{"compute: unknown context", func() uint32 { return h.compute(ctx, 99) }, nnInvalidArgument},
		{"get_output: unknown context", func() uint32 { return h.getOutput(mem, 99, 0, memBuf, 64, memWritten) }, nnInvalidArgument},
		{"get_output: buffer outside", func() uint32 { return h.getOutput(mem, c, 0, far, 64, memWritten) }, nnInvalidArgument},
		{"get_output: buffer past the end", func() uint32 { return h.getOutput(mem, c, 0, memEnd-8, 64, memWritten) }, nnInvalidArgument},
		{"get_output: written outside", func() uint32 { return h.getOutput(mem, c, 0, memBuf, 64, far) }, nnInvalidArgument},
		{"get_output: buffer too small", func() uint32 { return h.getOutput(mem, c, 0, memBuf, 8, memWritten) }, nnTooLarge},
		{"get_output: unknown output", func() uint32 { return h.getOutput(mem, c, 3, memBuf, 64, memWritten) }, nnNotFound},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want.String(), nnErrno(tt.call()).String(), tt.name)
	}
	assert.Equal(t, 3, nn.loads, "only the valid load and the two the engine refused reached it")
	assert.Len(t, nn.computed(), 1)
}

func TestNNNoEngine(t *testing.T) {
	t.Parallel()
	_, mem, _ := nnSetup(t)
	h := &nnHost{log: slog.New(slog.DiscardHandler)}
	assert.Equal(t, uint32(nnUnsupported), h.load(t.Context(), mem, memBuilders, 1, 1, 0, memOut))
}

// FuzzNNCalls calls every wasi-nn function with fuzzed arguments over a
// memory holding a loaded graph and a context: no call panics, and each
// returns one of wasi-nn's error codes.
func FuzzNNCalls(f *testing.F) {
	f.Add(uint8(0), uint32(memBuilders), uint32(1), uint32(1), uint32(0), uint32(memOut))
	f.Add(uint8(2), uint32(0), uint32(0), uint32(memTensor), uint32(0), uint32(0))
	f.Add(uint8(4), uint32(0), uint32(0), uint32(memBuf), uint32(64), uint32(memWritten))
	f.Add(uint8(2), uint32(0), uint32(0), uint32(memEnd-nnTensorSize), uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, fn uint8, a, b, c, d, e uint32) {
		h, mem, _ := nnSetup(t)
		ctx := context.Background()
		require.Equal(t, uint32(nnSuccess), h.load(ctx, mem, memBuilders, 1, 1, 0, memOut))
		require.Equal(t, uint32(nnSuccess), h.initContext(mem, 0, memOut))
		var got uint32
		switch fn % 5 {
		case 0:
			got = h.load(ctx, mem, a, b, c, d, e)
		case 1:
			got = h.initContext(mem, a, b)
		case 2:
			got = h.setInput(mem, a, b, c)
		case 3:
			got = h.compute(ctx, a)
		case 4:
			got = h.getOutput(mem, a, b, c, d, e)
		}
		assert.Less(t, got, uint32(len(nnErrnoNames)))
	})
}
