package wasmguard

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// simdKernels is the onnx plugin's WebAssembly SIMD128 kernel module,
// which its build links into the plugin's guest, so the host instruments
// it with the rest of the guest (read as a file: host imports nothing of
// the plugins).
var simdKernels = filepath.Join("..", "..", "..", "plugins", "onnx", "internal", "kernels", "wasmsimd", "onnx_simd.wasm")

// TestGuardStopsSIMDKernel: the rewrite understands the SIMD kernels'
// code, and a kernel looping long (a product of millions of rows over
// broadcast strides) reaches the guard's check, so the host's deadline
// holds during it.
func TestGuardStopsSIMDKernel(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile(simdKernels)
	require.NoError(t, err)
	res, err := Instrument(mod, cfg)
	require.NoError(t, err)
	assert.Greater(t, res.Loops, 10, "the kernels' loops are instrumented")

	ctx := t.Context()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { _ = rt.Close(context.WithoutCancel(ctx)) })
	// env.memory, two pages (the kernels ask for at least that): (module (memory (export "memory") 2)).
	env, err := rt.InstantiateWithConfig(ctx, []byte("\x00asm\x01\x00\x00\x00"+
		"\x05\x03\x01\x00\x02"+"\x07\x0a\x01\x06memory\x02\x00"), wazero.NewModuleConfig().WithName("env"))
	require.NoError(t, err)
	ticks := 0
	_, err = rt.NewHostModuleBuilder("guard").NewFunctionBuilder().
		WithFunc(func() {
			if ticks++; ticks >= 5 {
				panic(errStop)
			}
		}).Export("tick").Instantiate(ctx)
	require.NoError(t, err)
	kernels, err := rt.Instantiate(ctx, res.Module)
	require.NoError(t, err)

	// smallm_desc of csrc/smallm.c at 0x100: m = 5 767 233 rows, n = 3,
	// every pointer 0 and every stride 0 (all in range), no activation.
	desc := []byte{0x41, 0x00, 0x58, 0x00, 0x03}
	require.True(t, env.Memory().Write(0x100, append(desc, make([]byte, 64-len(desc))...)))
	_, err = kernels.ExportedFunction("smallm").Call(ctx, 0x100, 0x200)
	require.ErrorIs(t, err, errStop, "stopped by the guard, not finished")
	assert.Equal(t, 5, ticks)
}

// TestNestedFormKeepsSIMDGemm: the SIMD GEMM kernel, rewritten with a
// budget of 16 (its loops leave to the tick and re-enter every sixteen
// entries), computes the same C, bit for bit, as unguarded, on a shape whose
// edges are partial tiles.
func TestNestedFormKeepsSIMDGemm(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile(simdKernels)
	require.NoError(t, err)
	res, err := Instrument(mod, Config{ImportModule: "guard", ImportName: "tick", Budget: 16})
	require.NoError(t, err)
	require.Positive(t, res.Nested)
	const m, n, k = 37, 101, 67
	var outs [2][]byte
	for i, module := range [][]byte{mod, res.Module} {
		ctx := t.Context()
		rt := wazero.NewRuntime(ctx)
		defer rt.Close(context.WithoutCancel(ctx))
		gemm, desc := gemmFixture(t, rt, module, m, n, k)
		out, err := gemm.Call(ctx, uint64(desc))
		require.NoError(t, err)
		require.Equal(t, []uint64{0}, out, "gemm status")
		mem := rt.Module("env").Memory()
		c, ok := mem.ReadUint32Le(desc + 4*23) // gemm_desc.c
		require.True(t, ok)
		outs[i], ok = mem.Read(c, m*n*4)
		require.True(t, ok)
	}
	assert.Equal(t, outs[0], outs[1])
	assert.NotEqual(t, make([]byte, m*n*4), outs[0], "the product is not all zero")
}
