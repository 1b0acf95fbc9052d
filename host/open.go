package host

import (
	"context"
	"fmt"

	"github.com/mlperf-host/mlperf-host/host/manifest"
)

// Open starts a plugin found by [Find], [FromPath] or [Resolve]: a WASM
// module in this process, or an executable as a subprocess.
//
// # Errors
//
// A [*PluginError] naming the plugin: [ErrVersionMismatch] when its
// manifest or handshake names another ABI major, [ErrChecksum], [ErrStart],
// [ErrProtocol] for a module or process that does not follow the ABI.
func Open(ctx context.Context, p Plugin, cfg Config) (Backend, error) {
	if err := checkABIMajor(p); err != nil {
		return nil, err
	}
	for _, w := range p.Warnings {
		cfg.withDefaults().Logger.Warn("unsafe plugin file: "+w, "plugin", p.Name)
	}
	switch p.Kind {
	case manifest.KindWASM:
		return openWASMPlugin(ctx, p, cfg)
	case manifest.KindProcess:
		return openProcess(ctx, p, cfg)
	}
	return nil, fmt.Errorf("plugin %q: unknown kind %q", p.Name, p.Kind)
}
