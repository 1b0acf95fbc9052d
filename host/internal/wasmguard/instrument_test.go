package wasmguard

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

var cfg = Config{ImportModule: "guard", ImportName: "tick", Budget: 128}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

var errStop = errors.New("stopped by the guard")

// harness instantiates a module with env.log and guard.tick; tick counts
// its calls and panics with errStop once stopAfter calls were made
// (stopAfter 0: never).
type harness struct {
	mod   api.Module
	logs  []uint32
	ticks int
}

func instantiate(t *testing.T, module []byte, stopAfter int) *harness {
	t.Helper()
	ctx := t.Context()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { _ = rt.Close(context.WithoutCancel(ctx)) })
	h := &harness{}
	_, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(v uint32) { h.logs = append(h.logs, v) }).Export("log").Instantiate(ctx)
	require.NoError(t, err)
	_, err = rt.NewHostModuleBuilder("guard").NewFunctionBuilder().
		WithFunc(func() {
			h.ticks++
			if stopAfter > 0 && h.ticks >= stopAfter {
				panic(errStop)
			}
		}).Export("tick").Instantiate(ctx)
	require.NoError(t, err)
	h.mod, err = rt.Instantiate(ctx, module)
	require.NoError(t, err)
	return h
}

func (h *harness) call(t *testing.T, name string, args ...uint64) (uint64, error) {
	t.Helper()
	res, err := h.mod.ExportedFunction(name).Call(t.Context(), args...)
	if err != nil {
		return 0, err
	}
	return res[0], nil
}

func TestInstrumentKeepsMeaning(t *testing.T) {
	t.Parallel()
	orig := readFixture(t, "guard.wasm")
	res, err := Instrument(orig, cfg)
	require.NoError(t, err)
	assert.Equal(t, 3, res.Loops, "count, spin and nested each have one loop")

	tests := []struct {
		name      string
		fn        string
		args      []uint64
		want      uint64
		wantTicks int // with budget 128, counted per call of a function
	}{
		{name: "loop", fn: "count", args: []uint64{1000}, want: 1000, wantTicks: 7},
		{name: "loop below budget", fn: "count", args: []uint64{100}, want: 100, wantTicks: 0},
		{name: "call_indirect through the element segment", fn: "indirect", args: []uint64{250}, want: 250, wantTicks: 1},
		{name: "nested loops and a call", fn: "nested", args: []uint64{20}, want: 200, wantTicks: 0},
		{name: "start function ran once", fn: "calls", want: 7},
		{name: "ref.func in a global", fn: "ref_is_null", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plain := instantiate(t, orig, 0)
			guarded := instantiate(t, res.Module, 0)
			want, err := plain.call(t, tt.fn, tt.args...)
			require.NoError(t, err)
			require.Equal(t, tt.want, want)
			got, err := guarded.call(t, tt.fn, tt.args...)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, tt.wantTicks, guarded.ticks)
			assert.Equal(t, []uint32{1}, guarded.logs, "the start function calls the import once")
		})
	}
}

func TestGuardStopsEndlessLoop(t *testing.T) {
	t.Parallel()
	res, err := Instrument(readFixture(t, "guard.wasm"), cfg)
	require.NoError(t, err)
	h := instantiate(t, res.Module, 5)
	_, err = h.call(t, "spin", 0)
	require.ErrorIs(t, err, errStop)
	assert.Equal(t, 5, h.ticks)
	// The renumbered name section still names the function that looped.
	assert.Contains(t, err.Error(), ".spin(")
}

func TestInstrumentCreatesMissingSections(t *testing.T) {
	t.Parallel()
	// A module with a loop and no import or global section: (func (export
	// "f") (result i32) (loop (br 1 (i32.const 42))) unreachable).
	mod := []byte("\x00asm\x01\x00\x00\x00" +
		"\x01\x05\x01\x60\x00\x01\x7f" + // type: () -> i32
		"\x03\x02\x01\x00" + // function 0: type 0
		"\x07\x05\x01\x01f\x00\x00" + // export "f" = func 0
		"\x0a\x0c\x01\x0a\x00\x03\x40\x41\x2a\x0c\x01\x0b\x00\x0b") // loop: i32.const 42; br 1; end; unreachable
	res, err := Instrument(mod, cfg)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Loops)
	h := instantiate(t, res.Module, 0)
	got, err := h.call(t, "f")
	require.NoError(t, err)
	assert.Equal(t, uint64(42), got)
}

func TestInstrumentErrors(t *testing.T) {
	t.Parallel()
	good := readFixture(t, "guard.wasm")
	tests := []struct {
		name   string
		mod    []byte
		cfg    Config
		msg    string
		unsupp bool
	}{
		{name: "not wasm", mod: []byte("#!/bin/sh"), cfg: cfg, msg: "no \\0asm magic"},
		{name: "empty", mod: nil, cfg: cfg, msg: "no \\0asm magic"},
		{name: "other version", mod: []byte("\x00asm\x0d\x00\x01\x00"), cfg: cfg, unsupp: true},
		{name: "truncated", mod: good[:len(good)-7], cfg: cfg, msg: "unexpected end"},
		{name: "zero budget", mod: good, cfg: Config{Budget: 0}, msg: "budget 0"},
		{name: "budget not a power of two", mod: good, cfg: Config{Budget: 100}, msg: "want a power of two"},
		{name: "unknown opcode", mod: []byte("\x00asm\x01\x00\x00\x00" +
			"\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00\x0a\x05\x01\x03\x00\xff\x0b"), cfg: cfg, unsupp: true},
		{name: "sections out of order", mod: []byte("\x00asm\x01\x00\x00\x00\x03\x01\x00\x01\x01\x00"), cfg: cfg, msg: "out of order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Instrument(tt.mod, tt.cfg)
			require.Error(t, err)
			if tt.unsupp {
				require.ErrorIs(t, err, ErrUnsupported)
			}
			assert.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestLEB(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    int32
		want []byte
	}{
		{name: "zero", v: 0, want: []byte{0}},
		{name: "63", v: 63, want: []byte{0x3f}},
		{name: "64 needs a sign byte", v: 64, want: []byte{0xc0, 0}},
		{name: "minus one", v: -1, want: []byte{0x7f}},
		{name: "65536", v: 65536, want: []byte{0x80, 0x80, 0x04}},
		{name: "max", v: 1<<31 - 1, want: []byte{0xff, 0xff, 0xff, 0xff, 0x07}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, appendS32(nil, tt.v))
		})
	}
	for _, v := range []uint32{0, 1, 127, 128, 16383, 16384, 1<<32 - 1} {
		r := &reader{b: appendU32(nil, v)}
		got, err := r.u32()
		require.NoError(t, err)
		assert.Equal(t, v, got)
		assert.True(t, r.done())
	}
}

// FuzzInstrument checks that the rewrite never panics or loops, and that
// its output is a module the rewrite itself accepts again with the same
// loops (the inserted check has none). wazero is not run here: it
// allocates what a module's counts claim, so arbitrary bytes exhaust
// memory; TestInstrumentedFixturesCompile runs it on real modules.
func FuzzInstrument(f *testing.F) {
	f.Add(readFixture(f, "guard.wasm"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x01\x05\x01\x60\x00\x01\x7f\x03\x02\x01\x00\x0a\x0c\x01\x0a\x00\x03\x40\x41\x2a\x0c\x01\x0b\x00\x0b"))
	f.Fuzz(func(t *testing.T, mod []byte) {
		orig := bytes.Clone(mod)
		res, err := Instrument(mod, cfg)
		require.True(t, bytes.Equal(orig, mod), "the input is never modified")
		if err != nil {
			return
		}
		again, err := Instrument(res.Module, cfg)
		require.NoError(t, err)
		require.Equal(t, res.Loops+res.Nested, again.Loops)
	})
}

// TestInstrumentedFixturesCompile instruments every WASM module in the
// repository's host test data and checks that wazero still compiles it.
func TestInstrumentedFixturesCompile(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "wasm", "*.wasm"))
	require.NoError(t, err)
	paths = append(paths, filepath.Join("testdata", "guard.wasm"))
	require.Greater(t, len(paths), 1)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			mod, err := os.ReadFile(p)
			require.NoError(t, err)
			res, err := Instrument(mod, cfg)
			require.NoError(t, err)
			rt := wazero.NewRuntime(t.Context())
			defer rt.Close(t.Context())
			cm, err := rt.CompileModule(t.Context(), res.Module)
			require.NoError(t, err)
			assert.Len(t, cm.ImportedFunctions(), countImportsOf(t, mod)+1)
		})
	}
}

func countImportsOf(t *testing.T, mod []byte) int {
	t.Helper()
	secs, err := split(mod)
	require.NoError(t, err)
	for _, s := range secs {
		if s.id == secImport {
			n, err := countImports(s.body)
			require.NoError(t, err)
			return int(n)
		}
	}
	return 0
}
