package runner

import (
	"context"
	"fmt"
	"net"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// openRemote connects to the plugin served at address, over mutual TLS
// with the remote.* files.
func (p Plugins) openRemote(ctx context.Context, c *config.Config, address string) (host.Backend, error) {
	r := c.Remote
	rc := host.RemoteConfig{Plugin: "remote " + address, Address: address, InsecureLoopback: r.InsecureLoopback}
	if r.CA != "" || r.Cert != "" || r.Key != "" || !r.InsecureLoopback {
		name := r.ServerName
		if name == "" {
			name, _, _ = net.SplitHostPort(address)
		}
		tc, err := host.ClientTLS(host.TLSFiles{CA: r.CA, Cert: r.Cert, Key: r.Key}, name)
		if err != nil {
			return nil, exitcode.New(exitcode.Config, fmt.Errorf("%w: %w", config.ErrConfig, err),
				"set remote.ca, remote.cert and remote.key (--set remote.ca=FILE ...): docs/remote.md")
		}
		rc.TLS = tc
	}
	return host.OpenRemote(ctx, rc, p.HostConfig(c))
}

// Resolve finds the configured plugin (name or path) as Open would.
func (p Plugins) Resolve(c *config.Config) (host.Plugin, error) {
	return host.Resolve(c.Plugin, p.searchDirs(c, c.Plugin))
}
