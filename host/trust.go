package host

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Whoever can write a plugin's files can run code as the user who runs
// mlperf-host: a subprocess plugin runs unsandboxed. The host therefore
// refuses a manifest whose entry leaves its directory, warns about plugin
// files others may write, and starts exactly the bytes it verified.

// checkContained refuses an entry that resolves (through symbolic links)
// outside the directory of its manifest.
func checkContained(entry, dir string) error {
	realEntry, err := filepath.EvalSymlinks(entry)
	if err != nil {
		return fmt.Errorf("entry file: %w", err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("plugin directory: %w", err)
	}
	rel, err := filepath.Rel(realDir, realEntry)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s resolves to %s, outside the plugin directory %s: entries never leave their directory",
			entry, realEntry, realDir)
	}
	return nil
}

// unsafeModes returns a warning for each of paths that a user other than
// the owner (or root) may write, or that another user owns.
func unsafeModes(paths ...string) []string {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if why := unsafeMode(st); why != "" {
			out = append(out, p+": "+why)
		}
	}
	return out
}

// openVerified opens the plugin's entry and, when the manifest gives a
// checksum, checks the file's content through the returned handle: the
// host then starts that open file (see verifiedCommand), not whatever the
// path names a moment later.
func openVerified(p Plugin) (*os.File, error) {
	f, err := os.Open(p.Entry)
	if err != nil {
		return nil, &PluginError{Plugin: p.Name, Op: "start", Err: fmt.Errorf("%w: %w", ErrStart, err)}
	}
	if p.SHA256 == nil {
		return f, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return nil, &PluginError{Plugin: p.Name, Op: "open", Err: fmt.Errorf("%w: read %s: %w", ErrStart, p.Entry, err)}
	}
	if sum := h.Sum(nil); string(sum) != string(p.SHA256) {
		f.Close()
		return nil, &PluginError{Plugin: p.Name, Op: "open", Err: fmt.Errorf("%w: %s has sha256 %x, its manifest says %x",
			ErrChecksum, p.Entry, sum, p.SHA256)}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, &PluginError{Plugin: p.Name, Op: "open", Err: errors.Join(ErrStart, err)}
	}
	return f, nil
}
