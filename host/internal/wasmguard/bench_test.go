package wasmguard

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// BenchmarkGuard runs a naive 64x64 matrix product (testdata/matmul.wat)
// unguarded, with the loop guard (its nested form, and the inline form of
// loops with parameters for comparison), and with wazero's WithCloseOnContextDone:
// the price of each way to stop a runaway guest, on a worst case for it
// (tiny loop bodies).
func BenchmarkGuard(b *testing.B) {
	mod := readFixture(b, "matmul.wasm")
	guarded, err := Instrument(mod, Config{ImportModule: "guard", ImportName: "tick", Budget: 1 << 16})
	require.NoError(b, err)
	inline, err := Instrument(mod, Config{ImportModule: "guard", ImportName: "tick", Budget: 1 << 16, inline: true})
	require.NoError(b, err)
	for _, v := range []struct {
		name   string
		mod    []byte
		strict bool
	}{
		{name: "unguarded", mod: mod},
		{name: "loop-guard", mod: guarded.Module},
		{name: "loop-guard-inline", mod: inline.Module},
		{name: "close-on-context-done", mod: mod, strict: true},
	} {
		b.Run(v.name, func(b *testing.B) {
			ctx := context.Background()
			rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(v.strict))
			defer rt.Close(ctx)
			_, err := rt.NewHostModuleBuilder("guard").NewFunctionBuilder().
				WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {}), nil, nil).
				Export("tick").Instantiate(ctx)
			require.NoError(b, err)
			m, err := rt.Instantiate(ctx, v.mod)
			require.NoError(b, err)
			f := m.ExportedFunction("matmul")
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				if _, err := f.Call(ctx, 1); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0, 0)
		})
	}
}

// BenchmarkGuardSIMDGemm runs the onnx plugin's SIMD128 GEMM kernel (the
// 8×6 micro-kernel: twelve vector accumulators) on a ResNet-50 3×3
// convolution's shape, 64×3136×576, unguarded and with each form of the
// loop guard.
func BenchmarkGuardSIMDGemm(b *testing.B) {
	mod, err := os.ReadFile(simdKernels)
	require.NoError(b, err)
	c := Config{ImportModule: "guard", ImportName: "tick", Budget: 1 << 16}
	nested, err := Instrument(mod, c)
	require.NoError(b, err)
	c.inline = true
	inline, err := Instrument(mod, c)
	require.NoError(b, err)
	for _, v := range []struct {
		name string
		mod  []byte
	}{
		{name: "unguarded", mod: mod},
		{name: "loop-guard", mod: nested.Module},
		{name: "loop-guard-inline", mod: inline.Module},
	} {
		b.Run(v.name, func(b *testing.B) {
			ctx := context.Background()
			rt := wazero.NewRuntime(ctx)
			defer rt.Close(ctx)
			gemm, desc := gemmFixture(b, rt, v.mod, 64, 3136, 576)
			stack := make([]uint64, 1)
			c0 := cpuTime()
			for b.Loop() {
				stack[0] = uint64(desc)
				require.NoError(b, gemm.CallWithStack(ctx, stack))
				require.Zero(b, stack[0], "gemm status")
			}
			reportCPU(b, c0, 2*64*3136*576)
		})
	}
}

// gemmFixture instantiates the kernel module against a memory of its own
// (env.memory) and the tick, and lays out an m×n×k product with A packed:
// descriptor, A pointer, scratch, A, B, C, as gemm_desc of csrc/gemm.c
// wants them. It returns gemm and the descriptor's address.
func gemmFixture(b testing.TB, rt wazero.Runtime, mod []byte, m, n, k int) (api.Function, uint32) {
	b.Helper()
	ctx := context.Background()
	_, err := rt.NewHostModuleBuilder("guard").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {}), nil, nil).
		Export("tick").Instantiate(ctx)
	require.NoError(b, err)
	// (module (memory (export "memory") 1024)): 64 MiB.
	env, err := rt.InstantiateWithConfig(ctx, []byte("\x00asm\x01\x00\x00\x00"+
		"\x05\x04\x01\x00\x80\x08"+"\x07\x0a\x01\x06memory\x02\x00"), wazero.NewModuleConfig().WithName("env"))
	require.NoError(b, err)
	kern, err := rt.Instantiate(ctx, mod)
	require.NoError(b, err)
	res, err := kern.ExportedFunction("gemm_scratch_len").Call(ctx)
	require.NoError(b, err)
	scratchLen := int(res[0])
	mem := env.Memory()
	off := uint32(1 << 16)
	alloc := func(floats int) uint32 { p := off; off += uint32(floats*4+63) &^ 63; return p }
	desc, aptr, scratch := alloc(64), alloc(4), alloc(scratchLen)
	pa, bm, cm := alloc((m+7)/8*8*k), alloc(k*n), alloc(m*n)
	require.LessOrEqual(b, uint64(off), uint64(mem.Size()))
	for i := range (m+7)/8*8*k + k*n {
		mem.WriteFloat32Le(pa+uint32(4*i), float32(i%7)-3)
	}
	mem.WriteUint32Le(aptr, pa)
	fields := []uint32{uint32(m), uint32(n), uint32(k), 1, aptr, 1, 0, bm, uint32(n), 1, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, cm, uint32(n), 1, 0, math.Float32bits(1), 0, 0, 0, 0, 0, 0, 0, 0, 0,
		scratch, uint32(scratchLen), 0}
	for i, v := range fields {
		mem.WriteUint32Le(desc+uint32(4*i), v)
	}
	return kern.ExportedFunction("gemm"), desc
}

// reportCPU reports the process's CPU time per op since c0 (the machine is
// shared: wall time counts other work), and GFLOP/s in it for ops of
// flops each (0: none).
func reportCPU(b *testing.B, c0 time.Duration, flops float64) {
	b.Helper()
	c := cpuTime() - c0
	if c <= 0 {
		return
	}
	b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if flops > 0 {
		b.ReportMetric(flops*float64(b.N)/c.Seconds()/1e9, "cpu-GFLOP/s")
	}
}
