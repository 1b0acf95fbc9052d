package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// Plugins is where plugins come from: directories, and the plugin built
// into the binary.
type Plugins struct {
	// Dirs are searched in order for plugin.json manifests.
	Dirs []string
	// EmbeddedName is the name of the plugin built into the binary; used
	// when no installed plugin has the name.
	EmbeddedName string
	// WorkDir is the plugin directory under the working directory
	// (./plugins), one of Dirs. It is never searched for EmbeddedName:
	// whoever can write the working directory must not be able to replace
	// the default plugin, a sandboxed WASM module, with a native
	// executable that a plain "mlperf-host run" would start.
	WorkDir string
	// Embedded returns the embedded plugin's WASM module, or an error
	// saying the binary was built without it.
	Embedded func() ([]byte, error)
	// CacheDir is the default WASM compilation cache directory.
	CacheDir string
	// Logger receives the plugins' log lines.
	Logger *slog.Logger
	// LogLevel, when set, is the level Logger's handler filters at:
	// HostConfig sets it from host.log_level.
	LogLevel *slog.LevelVar
	// NN returns the engine behind WASM plugins' wasi-nn import for a
	// configuration (cmd wires ONNX Runtime, internal/nnort); nil, or a
	// nil result, leaves the import without one.
	NN func(c *config.Config) host.NN
	// OpenFunc, when set, replaces how Open opens the plugin (tests open a
	// fake backend).
	OpenFunc func(ctx context.Context, c *config.Config) (host.Backend, error)
}

// HostConfig maps the host.* keys onto host.Config.
func (p Plugins) HostConfig(c *config.Config) host.Config {
	cache := c.Host.CompilationCacheDir
	if cache == "" {
		cache = p.CacheDir
	}
	spin := c.Host.RingSpin
	if spin == 0 {
		spin = -1 // host.Config's "never poll"; its zero is the default
	}
	hc := host.Config{
		Logger: p.Logger, CallTimeout: c.Host.CallTimeout, CompilationCacheDir: cache,
		Instances: c.Host.Instances, MemoryLimitMiB: c.Host.MemoryLimitMiB, Guard: host.Guard(c.Host.Guard),
		DisableSharedRing: !c.Host.SharedRings, SharedRingFirstTokens: c.Host.SharedRingsFirstTokens, RingSpin: spin, CloseTimeout: c.Host.CloseTimeout,
		DisablePIDNamespace: c.Host.PIDNamespace == "off",
	}
	if p.NN != nil {
		hc.NN = p.NN(c)
	}
	if p.LogLevel != nil && c.Host.LogLevel != "" {
		var l slog.Level
		if err := l.UnmarshalText([]byte(c.Host.LogLevel)); err == nil {
			p.LogLevel.Set(l)
		}
	}
	return hc
}

// Dirs returns the configured plugin directories, else p.Dirs.
func (p Plugins) dirs(c *config.Config) []string {
	if len(c.Host.PluginDirs) > 0 {
		return c.Host.PluginDirs
	}
	return p.Dirs
}

// searchDirs returns the directories to search for the plugin name: dirs,
// less WorkDir for the embedded plugin's name (directories configured by
// host.plugin_dirs are the user's choice and kept). A plugin of that name
// under WorkDir is reported as ignored.
func (p Plugins) searchDirs(c *config.Config, name string) []string {
	dirs := p.dirs(c)
	if name != p.EmbeddedName || p.WorkDir == "" || len(c.Host.PluginDirs) > 0 {
		return dirs
	}
	kept := slices.DeleteFunc(slices.Clone(dirs), func(d string) bool { return d == p.WorkDir })
	if len(kept) < len(dirs) {
		if pl, err := host.Find(name, []string{p.WorkDir}); err == nil && p.Logger != nil {
			p.Logger.Warn(fmt.Sprintf("ignoring %s: the default plugin %q is never taken from the working directory; pass --plugin %s to run it",
				pl.Manifest, name, filepath.Dir(pl.Manifest)))
		}
	}
	return kept
}

// Open opens the configured plugin: an installed plugin of that name or
// path, else the embedded one when the name is its name; or the pool of
// the pool key (see openPool).
//
// # Errors
//
// host's errors: host.ErrPluginNotFound (also when the embedded plugin is
// asked for and the binary has none), host.ErrVersionMismatch, a
// *host.PluginError for a plugin that fails to start.
func (p Plugins) Open(ctx context.Context, c *config.Config) (host.Backend, error) {
	if p.OpenFunc != nil {
		return p.OpenFunc(ctx, c)
	}
	if len(c.Pool) > 0 && c.Remote.Address != "" {
		return nil, exitcode.New(exitcode.Config, fmt.Errorf("%w: pool and remote.address: a remote plugin in a pool is a member @HOST:PORT", config.ErrConfig),
			"write the remote plugin as a pool member: --pool 'PLUGIN,@HOST:PORT'")
	}
	if len(c.Pool) > 0 {
		return p.openPool(ctx, c)
	}
	if c.Remote.Address != "" {
		return p.openRemote(ctx, c, c.Remote.Address)
	}
	return p.openNamed(ctx, c, c.Plugin, p.HostConfig(c))
}

// openNamed opens the plugin name (or path) with hc.
func (p Plugins) openNamed(ctx context.Context, c *config.Config, name string, hc host.Config) (host.Backend, error) {
	pl, err := host.Resolve(name, p.searchDirs(c, name))
	if err == nil {
		return host.Open(ctx, pl, hc)
	}
	if !errors.Is(err, host.ErrPluginNotFound) || name != p.EmbeddedName || p.Embedded == nil {
		return nil, err
	}
	module, eerr := p.Embedded()
	if eerr != nil {
		return nil, fmt.Errorf("%w (%v)", eerr, err)
	}
	return host.OpenWASM(ctx, p.EmbeddedName, module, hc)
}

// Entry is one plugin for "plugins list".
type Entry struct {
	Name, Version, Kind, Path, Description string
	ABIMajor                               int
}

// List lists the installed plugins and the embedded one, and the problems
// with manifests that could not be read. Installed plugins are described
// by their manifests; the embedded one, which has none, by its own Info
// (one instance, through the compilation cache).
func (p Plugins) List(ctx context.Context, c *config.Config) ([]Entry, error) {
	found, problems := host.List(p.dirs(c))
	var out []Entry
	have := false
	for _, f := range found {
		out = append(out, Entry{Name: f.Name, Version: f.Version, Kind: string(f.Kind), Path: f.Manifest,
			Description: f.Description, ABIMajor: f.ABIMajor})
		// One under WorkDir never replaces the embedded plugin.
		have = have || f.Name == p.EmbeddedName && (p.WorkDir == "" || filepath.Dir(filepath.Dir(f.Manifest)) != p.WorkDir)
	}
	if p.Embedded != nil {
		if module, err := p.Embedded(); err == nil {
			e := Entry{Name: p.EmbeddedName, Kind: "wasm", Path: "(embedded)", Description: "built into this binary"}
			hc := p.HostConfig(c)
			hc.Instances = 1
			if b, err := host.OpenWASM(ctx, p.EmbeddedName, module, hc); err != nil {
				e.Description += fmt.Sprintf(" (cannot open it: %v)", err)
			} else {
				info := b.Info()
				e.Version, e.ABIMajor = info.Version, info.ABIMajor
				if info.Description != "" {
					e.Description = info.Description + "; " + e.Description
				}
				_ = b.Close()
			}
			if have {
				e.Description += "; the installed one above takes precedence"
			}
			out = append(out, e)
		}
	}
	return out, problems
}
