package host

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host/manifest"
)

// writePlugin creates dir/sub/plugin.json with the given JSON and an entry
// file named entry holding content (mode 0755 when exec).
func writePlugin(t *testing.T, dir, sub, json, entry string, content []byte, exec bool) string {
	t.Helper()
	d := filepath.Join(dir, sub)
	require.NoError(t, os.MkdirAll(d, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(d, manifest.FileName), []byte(json), 0o644))
	if entry != "" {
		mode := os.FileMode(0o644)
		if exec {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(filepath.Join(d, entry), content, mode))
	}
	return d
}

var wasmBytes = []byte("\x00asm\x01\x00\x00\x00")

func wasmManifest(name string) string {
	return `{"name":"` + name + `","version":"1.0","kind":"wasm","abi_major":1,"entry":"m.wasm","memory_limit_mib":64}`
}

func TestFind(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	writePlugin(t, a, "echo", wasmManifest("echo"), "m.wasm", wasmBytes, false)
	writePlugin(t, a, "renamed", wasmManifest("other"), "m.wasm", wasmBytes, false)
	writePlugin(t, b, "trt", `{"name":"trt","version":"2","kind":"process","abi_major":1,"entry":"trt"}`, "trt", []byte("#!/bin/sh\n"), true)
	writePlugin(t, b, "dup", wasmManifest("echo2"), "m.wasm", wasmBytes, false)
	writePlugin(t, a, "dup", wasmManifest("echo2"), "m.wasm", wasmBytes, false)
	writePlugin(t, b, "broken", `{"name":`, "", nil, false)
	require.NoError(t, os.MkdirAll(filepath.Join(b, "not-a-plugin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(b, "stray-file"), nil, 0o644))
	dirs := []string{a, filepath.Join(a, "missing"), b}

	tests := []struct {
		name    string
		plugin  string
		want    Plugin
		wantErr error
		msg     string
	}{
		{name: "wasm by name", plugin: "echo", want: Plugin{
			Name: "echo", Version: "1.0", Kind: manifest.KindWASM, ABIMajor: 1, MemoryLimitMiB: 64,
			Entry: filepath.Join(a, "echo", "m.wasm"), Manifest: filepath.Join(a, "echo", "plugin.json"),
		}},
		{name: "manifest name, not directory name", plugin: "other", want: Plugin{
			Name: "other", Version: "1.0", Kind: manifest.KindWASM, ABIMajor: 1, MemoryLimitMiB: 64,
			Entry: filepath.Join(a, "renamed", "m.wasm"), Manifest: filepath.Join(a, "renamed", "plugin.json"),
		}},
		{name: "process in second dir", plugin: "trt", want: Plugin{
			Name: "trt", Version: "2", Kind: manifest.KindProcess, ABIMajor: 1,
			Entry: filepath.Join(b, "trt", "trt"), Manifest: filepath.Join(b, "trt", "plugin.json"),
		}},
		{name: "two matches", plugin: "echo2", wantErr: ErrAmbiguousPlugin,
			msg: `more than one plugin matches "echo2": ` + filepath.Join(a, "dup", "plugin.json") + ", " + filepath.Join(b, "dup", "plugin.json")},
		{name: "missing names dirs and skipped manifests", plugin: "nope", wantErr: ErrPluginNotFound,
			msg: `plugin not found: "nope" is in none of [` + a},
		{name: "bad manifest in the plugin's own directory", plugin: "broken", wantErr: manifest.ErrInvalid,
			msg: filepath.Join(b, "broken", "plugin.json") + ":1:9: unexpected end of file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Find(tt.plugin, dirs)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), tt.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
		})
	}

	t.Run("not found lists the skipped manifests", func(t *testing.T) {
		t.Parallel()
		_, err := Find("nope", dirs)
		assert.ErrorContains(t, err, "manifests skipped as invalid: "+filepath.Join(b, "broken", "plugin.json"))
	})
	t.Run("list", func(t *testing.T) {
		t.Parallel()
		ps, err := List(dirs)
		require.ErrorIs(t, err, manifest.ErrInvalid)
		var names []string
		for _, p := range ps {
			names = append(names, p.Name)
		}
		assert.Equal(t, []string{"echo2", "echo", "other", "echo2", "trt"}, names, "dirs in order, entries sorted")
	})
}

func TestManifestEntryChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		json     string
		entry    string
		content  []byte
		exec     bool
		msg      string
		wantKind manifest.Kind
	}{
		{name: "entry missing", json: wasmManifest("x"), msg: "entry file: stat"},
		{name: "wasm kind, not wasm", json: wasmManifest("x"), entry: "m.wasm", content: []byte("#!/bin/sh"),
			msg: `kind is "wasm" but`},
		{name: "process kind, wasm file", json: `{"name":"x","version":"1","kind":"process","abi_major":1,"entry":"m.wasm"}`,
			entry: "m.wasm", content: wasmBytes, exec: true, msg: `kind is "process" but`},
		{name: "process not executable", json: `{"name":"x","version":"1","kind":"process","abi_major":1,"entry":"run"}`,
			entry: "run", content: []byte("#!/bin/sh"), msg: "is not executable (chmod +x)"},
		{name: "short wasm file", json: wasmManifest("x"), entry: "m.wasm", content: []byte("\x00a"), msg: "no \\0asm magic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := writePlugin(t, t.TempDir(), "x", tt.json, tt.entry, tt.content, tt.exec)
			_, err := FromPath(d)
			require.ErrorIs(t, err, manifest.ErrInvalid)
			assert.ErrorContains(t, err, `field "entry": `)
			assert.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestFromPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, mode))
		return p
	}
	wasm := write("model.bin", wasmBytes, 0o644) // magic, not the extension, decides
	exe := write("trt-plugin", []byte("#!/bin/sh\n"), 0o755)
	text := write("notes.txt", []byte("hello"), 0o644)
	empty := write("empty", nil, 0o644)
	pdir := writePlugin(t, dir, "echo", wasmManifest("echo"), "m.wasm", wasmBytes, false)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bare"), 0o755))

	tests := []struct {
		name    string
		path    string
		want    Plugin
		wantErr error
		msg     string
	}{
		{name: "wasm by magic", path: wasm, want: Plugin{Name: "model", Kind: manifest.KindWASM, Entry: wasm}},
		{name: "executable", path: exe, want: Plugin{Name: "trt-plugin", Kind: manifest.KindProcess, Entry: exe}},
		{name: "plugin directory", path: pdir, want: Plugin{Name: "echo", Version: "1.0", Kind: manifest.KindWASM, ABIMajor: 1,
			MemoryLimitMiB: 64, Entry: filepath.Join(pdir, "m.wasm"), Manifest: filepath.Join(pdir, "plugin.json")}},
		{name: "manifest file", path: filepath.Join(pdir, "plugin.json"), want: Plugin{Name: "echo", Version: "1.0",
			Kind: manifest.KindWASM, ABIMajor: 1, MemoryLimitMiB: 64, Entry: filepath.Join(pdir, "m.wasm"),
			Manifest: filepath.Join(pdir, "plugin.json")}},
		{name: "text file", path: text, wantErr: ErrNotPlugin, msg: "not a WASM module (no \\0asm magic), not executable"},
		{name: "empty file", path: empty, wantErr: ErrNotPlugin},
		{name: "directory without manifest", path: filepath.Join(dir, "bare"), wantErr: ErrNotPlugin, msg: "directory without plugin.json"},
		{name: "missing", path: filepath.Join(dir, "nope.wasm"), wantErr: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := FromPath(tt.path)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.ErrorContains(t, err, tt.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
		})
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writePlugin(t, dir, "echo", wasmManifest("echo"), "m.wasm", wasmBytes, false)
	tests := []struct {
		name, ref string
		wantName  string
		wantErr   error
	}{
		{name: "bare name searches dirs", ref: "echo", wantName: "echo"},
		{name: "path", ref: filepath.Join(dir, "echo", "m.wasm"), wantName: "m"},
		{name: "relative-looking .wasm is a path", ref: "echo.wasm", wantErr: ErrPluginNotFound},
		{name: "missing path", ref: "../../evil", wantErr: ErrPluginNotFound},
		{name: "unknown name", ref: "nope", wantErr: ErrPluginNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Resolve(tt.ref, []string{dir})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantName, p.Name)
		})
	}
}

func TestCheckABIMajor(t *testing.T) {
	t.Parallel()
	require.NoError(t, checkABIMajor(Plugin{Name: "x", ABIMajor: 1}))
	require.NoError(t, checkABIMajor(Plugin{Name: "x"}), "unknown until the handshake")
	err := checkABIMajor(Plugin{Name: "x", ABIMajor: 2})
	require.ErrorIs(t, err, ErrVersionMismatch)
	assert.EqualError(t, err, `plugin "x": handshake: speaks another ABI version: plugin speaks ABI v2, this mlperf-host speaks v1: upgrade mlperf-host or install a v1 build of the plugin`)
}

func TestDefaultDirs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		cwd, xdg, home, exe string
		want                []string
	}{
		{name: "all", cwd: "/w", xdg: "/x", home: "/h", exe: "/usr/bin/mlperf-host",
			want: []string{"/w/plugins", "/x/mlperf-host/plugins", "/usr/bin/plugins"}},
		{name: "home when no XDG", cwd: "/w", home: "/h", exe: "/opt/m/mlperf-host",
			want: []string{"/w/plugins", "/h/.local/share/mlperf-host/plugins", "/opt/m/plugins"}},
		{name: "duplicates once", cwd: "/opt/m", exe: "/opt/m/mlperf-host", want: []string{"/opt/m/plugins"}},
		{name: "nothing", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, DefaultDirs(tt.cwd, tt.xdg, tt.home, tt.exe))
		})
	}
}
