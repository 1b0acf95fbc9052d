package wasmguard

import (
	"context"
	"testing"

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
			for b.Loop() {
				if _, err := f.Call(ctx, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
