package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host/manifest"
)

// Kind is how a plugin runs: manifest.KindWASM or manifest.KindProcess.
type Kind = manifest.Kind

// wasmMagic starts every WASM binary module.
var wasmMagic = []byte("\x00asm")

// Plugin is a plugin found on disk: by name through its manifest, or by the
// path of its entry file.
type Plugin struct {
	// Name is the manifest's name, or the entry file's base name without
	// extension for a plugin opened by path.
	Name        string
	Version     string
	Description string
	Kind        Kind
	// ABIMajor is the ABI major the manifest declares; 0 when opened by
	// path (then only the handshake tells).
	ABIMajor int
	// Entry is the absolute path of the .wasm file or executable.
	Entry string
	// Manifest is the absolute path of plugin.json; "" when opened by path.
	Manifest string
	// SHA256 is the entry's expected checksum; nil means unchecked.
	SHA256 []byte
	// MemoryLimitMiB is the manifest's cap for WASM instances; 0 = unset.
	MemoryLimitMiB int
	// Reattachable: the plugin may be reattached to by later runs.
	Reattachable bool
	// Warnings are the plugin's files that others may write (see
	// docs/host.md); Open logs them.
	Warnings []string
}

// Resolve finds a plugin by reference: a path (anything with a path
// separator, or ending in .wasm or .json) is opened with [FromPath]; a bare
// name is looked up in dirs with [Find].
func Resolve(ref string, dirs []string) (Plugin, error) {
	if strings.ContainsRune(ref, '/') || strings.ContainsRune(ref, filepath.Separator) ||
		strings.HasSuffix(ref, ".wasm") || strings.HasSuffix(ref, ".json") {
		return FromPath(ref)
	}
	return Find(ref, dirs)
}

// Find looks for the plugin named name in dirs. Each dir holds one
// directory per plugin with a plugin.json manifest; dirs that do not exist
// are skipped. The search order is deterministic (dirs in order, entries
// sorted), and more than one match is an error, not a choice.
//
// # Errors
//
//   - [ErrPluginNotFound], listing the directories searched (and the
//     manifests that could not be read, in case one was meant).
//   - [ErrAmbiguousPlugin], listing every match.
//   - [manifest.ErrInvalid] when the plugin's own directory (named like the
//     plugin) holds a bad manifest.
func Find(name string, dirs []string) (Plugin, error) {
	found, bad := scan(dirs)
	var matches []Plugin
	for _, p := range found {
		if p.Name == name {
			matches = append(matches, p)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
	default:
		paths := make([]string, len(matches))
		for i, m := range matches {
			paths[i] = m.Manifest
		}
		return Plugin{}, fmt.Errorf("%w %q: %s; remove all but one, or pass the path of the one to use",
			ErrAmbiguousPlugin, name, strings.Join(paths, ", "))
	}
	for _, b := range bad {
		if filepath.Base(b.dir) == name {
			return Plugin{}, b.err
		}
	}
	msg := fmt.Sprintf("%v: %q is in none of %s", ErrPluginNotFound, name, listDirs(dirs))
	if len(bad) > 0 {
		var skipped []string
		for _, b := range bad {
			skipped = append(skipped, b.err.Error())
		}
		msg += "; manifests skipped as invalid: " + strings.Join(skipped, "; ")
	}
	return Plugin{}, &notFoundError{msg: msg}
}

type notFoundError struct{ msg string }

func (e *notFoundError) Error() string        { return e.msg }
func (e *notFoundError) Is(target error) bool { return target == ErrPluginNotFound }

func listDirs(dirs []string) string {
	if len(dirs) == 0 {
		return "no plugin directories"
	}
	return "[" + strings.Join(dirs, ", ") + "]"
}

// List returns every valid plugin in dirs, in search order, and the
// problems with the others (joined; nil when there are none).
func List(dirs []string) ([]Plugin, error) {
	found, bad := scan(dirs)
	errs := make([]error, len(bad))
	for i, b := range bad {
		errs[i] = b.err
	}
	return found, errors.Join(errs...)
}

type badManifest struct {
	dir string
	err error
}

// scan reads every <dir>/<entry>/plugin.json in order.
func scan(dirs []string) ([]Plugin, []badManifest) {
	var found []Plugin
	var bad []badManifest
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				bad = append(bad, badManifest{dir: dir, err: fmt.Errorf("plugin directory %s: %w", dir, err)})
			}
			continue
		}
		for _, e := range entries { // sorted by name
			sub := filepath.Join(dir, e.Name())
			if st, err := os.Stat(sub); err != nil || !st.IsDir() {
				continue
			}
			path := filepath.Join(sub, manifest.FileName)
			if !fileExists(path) {
				continue // not a plugin directory
			}
			if p, err := fromManifest(path); err != nil {
				bad = append(bad, badManifest{dir: sub, err: err})
			} else {
				found = append(found, p)
			}
		}
	}
	return found, bad
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// fromManifest reads a manifest and checks that its entry file exists.
func fromManifest(path string) (Plugin, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Plugin{}, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return Plugin{}, fmt.Errorf("read plugin manifest: %w", err)
	}
	defer f.Close()
	m, err := manifest.Parse(abs, f)
	if err != nil {
		return Plugin{}, err
	}
	p := Plugin{
		Name: m.Name, Version: m.Version, Description: m.Description, Kind: m.Kind,
		ABIMajor: m.ABIMajor, Entry: filepath.Join(filepath.Dir(abs), filepath.FromSlash(m.Entry)),
		Manifest: abs, SHA256: m.Checksum(), MemoryLimitMiB: m.MemoryLimitMiB, Reattachable: m.Reattachable,
	}
	if err := checkEntry(p); err != nil {
		return Plugin{}, &manifest.Error{File: abs, Field: "entry", Err: err}
	}
	if err := checkContained(p.Entry, filepath.Dir(abs)); err != nil {
		return Plugin{}, &manifest.Error{File: abs, Field: "entry", Err: err}
	}
	p.Warnings = unsafeModes(filepath.Dir(abs), abs, p.Entry)
	return p, nil
}

// checkEntry checks that a manifest's entry file exists and fits its kind.
func checkEntry(p Plugin) error {
	st, err := os.Stat(p.Entry)
	if err != nil {
		return fmt.Errorf("entry file: %w", err)
	}
	if st.IsDir() {
		return fmt.Errorf("entry %s is a directory", p.Entry)
	}
	isWASM, err := hasWASMMagic(p.Entry)
	if err != nil {
		return err
	}
	switch {
	case p.Kind == manifest.KindWASM && !isWASM:
		return fmt.Errorf(`kind is "wasm" but %s is not a WASM module (no \0asm magic)`, p.Entry)
	case p.Kind == manifest.KindProcess && isWASM:
		return fmt.Errorf(`kind is "process" but %s is a WASM module`, p.Entry)
	case p.Kind == manifest.KindProcess && st.Mode()&0o111 == 0:
		return fmt.Errorf("%s is not executable (chmod +x)", p.Entry)
	}
	return nil
}

// FromPath opens a plugin by path: a plugin directory (with plugin.json),
// a manifest file, a WASM module (recognized by its \0asm magic, whatever
// its name), or an executable.
func FromPath(path string) (Plugin, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Plugin{}, fmt.Errorf("plugin %s: %w", path, err)
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return Plugin{}, fmt.Errorf("%w: %s: %w", ErrPluginNotFound, path, fs.ErrNotExist)
	}
	if err != nil {
		return Plugin{}, fmt.Errorf("plugin %s: %w", path, err)
	}
	if st.IsDir() {
		mf := filepath.Join(abs, manifest.FileName)
		if !fileExists(mf) {
			return Plugin{}, fmt.Errorf("%w: %s is a directory without %s", ErrNotPlugin, path, manifest.FileName)
		}
		return fromManifest(mf)
	}
	isWASM, err := hasWASMMagic(abs)
	if err != nil {
		return Plugin{}, fmt.Errorf("plugin %s: %w", path, err)
	}
	name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	switch {
	case isWASM:
		return Plugin{Name: name, Kind: manifest.KindWASM, Entry: abs, Warnings: unsafeModes(abs)}, nil
	case strings.HasSuffix(abs, ".json"):
		return fromManifest(abs)
	case st.Mode()&0o111 != 0:
		return Plugin{Name: name, Kind: manifest.KindProcess, Entry: abs, Warnings: unsafeModes(abs)}, nil
	}
	return Plugin{}, fmt.Errorf(`%w: %s is not a WASM module (no \0asm magic), not executable and not a %s`,
		ErrNotPlugin, path, manifest.FileName)
}

// hasWASMMagic reports whether the file starts with the WASM magic.
func hasWASMMagic(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(wasmMagic))
	if _, err := io.ReadFull(f, head); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, nil
		}
		return false, err
	}
	return bytes.Equal(head, wasmMagic), nil
}

// checkABIMajor rejects a plugin whose manifest declares another major
// before anything is started.
func checkABIMajor(p Plugin) error {
	if p.ABIMajor != 0 && p.ABIMajor != abi.Major {
		return versionMismatch(p.Name, p.ABIMajor)
	}
	return nil
}

// DefaultDirs returns the conventional plugin directories, in search
// order, from values the caller reads from its process (package host never
// reads the environment): ./plugins under cwd, mlperf-host/plugins under
// the XDG data directory (xdgDataHome, else home/.local/share), and
// plugins next to the executable. Empty inputs drop their directory.
func DefaultDirs(cwd, xdgDataHome, home, executable string) []string {
	var dirs []string
	add := func(d string) {
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	if cwd != "" {
		add(filepath.Join(cwd, "plugins"))
	}
	switch {
	case xdgDataHome != "":
		add(filepath.Join(xdgDataHome, "mlperf-host", "plugins"))
	case home != "":
		add(filepath.Join(home, ".local", "share", "mlperf-host", "plugins"))
	}
	if executable != "" {
		add(filepath.Join(filepath.Dir(executable), "plugins"))
	}
	return dirs
}
