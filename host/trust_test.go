package host

import (
	"bytes"
	"crypto/sha256"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host/manifest"
)

func fileSHA256(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return sum[:], nil
}

const shManifest = `{"name":"sh","version":"1","kind":"process","abi_major":1,"entry":"sh"}`

// TestEntryLeavesItsDirectory: an entry that is a symbolic link to a file
// outside its plugin directory is refused; one inside is fine.
func TestEntryLeavesItsDirectory(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "payload")
	require.NoError(t, os.WriteFile(target, []byte("#!/bin/sh\n"), 0o755))
	pdir := writePlugin(t, dir, "sh", shManifest, "", nil, false)
	require.NoError(t, os.Symlink(target, filepath.Join(pdir, "sh")))
	_, err := Find("sh", []string{dir})
	require.ErrorIs(t, err, manifest.ErrInvalid)
	assert.ErrorContains(t, err, "resolves to "+target+", outside the plugin directory")

	inside := writePlugin(t, dir, "in", `{"name":"in","version":"1","kind":"process","abi_major":1,"entry":"in"}`, "real", []byte("#!/bin/sh\n"), true)
	require.NoError(t, os.Symlink("real", filepath.Join(inside, "in")))
	_, err = Find("in", []string{dir})
	require.NoError(t, err, "a link inside the directory is fine")
}

// TestUnsafeModesWarned: plugin files every user may write are reported,
// and Open logs them.
func TestUnsafeModesWarned(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no unix modes")
	}
	dir := t.TempDir()
	pdir := writePlugin(t, dir, "echo", wasmManifest("echo"), "m.wasm", wasmBytes, false)
	p, err := Find("echo", []string{dir})
	require.NoError(t, err)
	assert.Empty(t, p.Warnings)

	require.NoError(t, os.Chmod(pdir, 0o777))
	require.NoError(t, os.Chmod(filepath.Join(pdir, "plugin.json"), 0o666))
	p, err = Find("echo", []string{dir})
	require.NoError(t, err)
	require.Len(t, p.Warnings, 2)
	assert.Contains(t, p.Warnings[0], pdir+": writable by every user (mode 0777)")
	assert.Contains(t, p.Warnings[1], "plugin.json: writable by every user (mode 0666)")

	var log bytes.Buffer
	_, _ = Open(t.Context(), p, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	assert.Contains(t, log.String(), "unsafe plugin file: "+pdir+": writable by every user")
}

// TestStartsWhatWasVerified: the host starts the file it verified against
// the manifest's checksum, even when the path is replaced after the check.
func TestStartsWhatWasVerified(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("only Linux starts a program from an open file")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "plugin")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho verified\n"), 0o755))
	sum, err := fileSHA256(path)
	require.NoError(t, err)
	f, err := openVerified(Plugin{Name: "sh", Entry: path, SHA256: sum})
	require.NoError(t, err)
	defer f.Close()

	swapped := filepath.Join(dir, "swapped")
	require.NoError(t, os.WriteFile(swapped, []byte("#!/bin/sh\necho swapped\n"), 0o755))
	require.NoError(t, os.Rename(swapped, path))

	cmd := verifiedCommand(f, path)
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, "verified\n", string(out))
	assert.Equal(t, path, cmd.Args[0], "the plugin sees its path as argv[0]")

	_, err = openVerified(Plugin{Name: "sh", Entry: path, SHA256: sum})
	require.ErrorIs(t, err, ErrChecksum, "the replacement does not match")
}
