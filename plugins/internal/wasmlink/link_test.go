package wasmlink

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".wasm"))
	require.NoError(t, err)
	return b
}

// run instantiates a linked plugin with the env imports it keeps and
// returns run(x) and what it logged.
func run(t *testing.T, module []byte, x uint32) (uint32, []uint32) {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	var logged []uint32
	_, err := rt.NewHostModuleBuilder("env").
		NewFunctionBuilder().WithFunc(func(v uint32) { logged = append(logged, v) }).Export("log").
		NewFunctionBuilder().WithFunc(func() uint32 { return 100 }).Export("base").
		Instantiate(ctx)
	require.NoError(t, err)
	m, err := rt.Instantiate(ctx, module)
	require.NoError(t, err)
	res, err := m.ExportedFunction("run").Call(ctx, uint64(x))
	require.NoError(t, err)
	return uint32(res[0]), logged
}

func TestLink(t *testing.T) {
	t.Parallel()
	out, err := Link(fixture(t, "plugin"), fixture(t, "lib"), "lib")
	require.NoError(t, err)
	got, logged := run(t, out, 5)
	assert.Equal(t, uint32(5+100+1+3*5), got)
	assert.Equal(t, []uint32{5}, logged, "the library's store and the kept import both ran")

	cm, err := wazero.NewRuntime(context.Background()).CompileModule(context.Background(), out)
	require.NoError(t, err)
	for _, f := range cm.ImportedFunctions() {
		module, name, _ := f.Import()
		assert.Equal(t, "env", module, "%s.%s is still imported", module, name)
	}
	assert.Len(t, cm.ImportedFunctions(), 2)
	names := map[string]bool{}
	for name := range cm.ExportedFunctions() {
		names[name] = true
	}
	assert.Equal(t, map[string]bool{"run": true}, names)
}

// TestLinkNames: the name section follows the renumbering, so traps name
// the right functions, and names the library's functions after it.
func TestLinkNames(t *testing.T) {
	t.Parallel()
	out, err := Link(fixture(t, "plugin"), fixture(t, "lib"), "lib")
	require.NoError(t, err)
	m, err := parse(out)
	require.NoError(t, err)
	// run (4) has no name in the fixture; the library's exports are named
	// after their export names.
	assert.Equal(t, map[uint32]string{0: "log", 1: "base", 2: "f", 3: "g", 5: "lib.inc", 6: "lib.add", 7: "lib.store"}, m.names)
}

func TestLinkNothingToLink(t *testing.T) {
	t.Parallel()
	lib := fixture(t, "lib")
	// The library itself imports nothing from "other".
	out, err := Link(lib, fixture(t, "lib_global"), "other")
	require.NoError(t, err)
	assert.Equal(t, lib, out)
}

func TestLinkRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, lib, want string
	}{
		{name: "globals", lib: "lib_global", want: "globals"},
		{name: "function import", lib: "lib_import", want: "may import only a memory"},
		{name: "data segment", lib: "lib_data", want: "data segments"},
		{name: "own memory", lib: "lib_memory", want: "defines a memory"},
		{name: "memory.grow", lib: "lib_grow", want: "memory.grow"},
		{name: "signature", lib: "lib_signature", want: "lib.add"},
		{name: "missing export", lib: "lib_missing", want: "does not export"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Link(fixture(t, "plugin"), fixture(t, tt.lib), "lib")
			require.ErrorIs(t, err, ErrLibrary)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestLinkNotWasm(t *testing.T) {
	t.Parallel()
	_, err := Link([]byte("#!/bin/sh"), fixture(t, "lib"), "lib")
	require.ErrorIs(t, err, ErrNotWasm)
	_, err = Link(fixture(t, "plugin"), []byte("nope"), "lib")
	require.ErrorIs(t, err, ErrNotWasm)
}

// TestLinkTruncated: every prefix of a valid plugin is refused with an
// error or, when it ends between sections, linked into a module that
// decodes; never a panic.
func TestLinkTruncated(t *testing.T) {
	t.Parallel()
	plugin, lib := fixture(t, "plugin"), fixture(t, "lib")
	for n := range len(plugin) {
		out, err := Link(plugin[:n], lib, "lib")
		if err == nil {
			_, err = parse(out)
			assert.NoError(t, err, "prefix of %d bytes", n)
		}
	}
}

// FuzzLink: whatever the plugin bytes, Link returns an error or a module
// that decodes, and never panics.
func FuzzLink(f *testing.F) {
	f.Add(fixture(f, "plugin"))
	f.Add(fixture(f, "lib"))
	lib := fixture(f, "lib")
	f.Fuzz(func(t *testing.T, plugin []byte) {
		out, err := Link(plugin, lib, "lib")
		if err != nil {
			return
		}
		_, err = parse(out)
		assert.NoError(t, err)
	})
}

var _ api.Module // wazero's api is what run drives
