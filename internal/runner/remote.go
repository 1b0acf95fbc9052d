package runner

import (
	"context"
	"errors"
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
	rc := host.RemoteConfig{Plugin: "remote " + address, Address: address, InsecureLoopback: r.InsecureLoopback,
		NetworkDivision: r.NetworkDivision, DialTimeout: r.DialTimeout}
	if r.CA != "" || r.Cert != "" || r.Key != "" || !r.InsecureLoopback {
		name := r.ServerName
		if name == "" {
			name, _, _ = net.SplitHostPort(address)
		}
		files := host.TLSFiles{CA: r.CA, Cert: r.Cert, Key: r.Key}
		tc, err := host.ClientTLS(files, name)
		if err != nil {
			return nil, exitcode.New(exitcode.Config, fmt.Errorf("%w: %w", config.ErrConfig, err),
				"set remote.ca, remote.cert and remote.key (--set remote.ca=FILE ...): docs/remote.md")
		}
		for _, w := range files.Warnings() {
			if p.Logger != nil {
				p.Logger.Warn("remote plugin: " + w)
			}
		}
		rc.TLS = tc
	}
	b, err := host.OpenRemote(ctx, rc, p.HostConfig(c))
	if errors.Is(err, host.ErrInsecure) {
		return nil, exitcode.New(exitcode.Config, fmt.Errorf("%w: %w", config.ErrConfig, err),
			"remote.insecure_loopback=1 allows plaintext to a loopback address only: set remote.ca, remote.cert and remote.key for "+address)
	}
	return b, err
}

// Resolve finds the configured plugin (name or path) as Open would.
func (p Plugins) Resolve(c *config.Config) (host.Plugin, error) {
	return host.Resolve(c.Plugin, p.searchDirs(c, c.Plugin))
}

// networkMessage is the detail log's line for a run in the Network
// division; "" otherwise.
//
// # Errors
//
// remote.network_division with no plugin served on another machine; the
// network division without remote.network_division.
func networkMessage(c *config.Config) (string, error) {
	if !c.Remote.NetworkDivision {
		if c.Division == "network" {
			return "", exitcode.New(exitcode.Config, fmt.Errorf("%w: %s=network without %s=1: the Network division's rules send sample data with each query",
				config.ErrConfig, config.KeyDivision, config.KeyRemoteNetworkDivision), "set remote.network_division=1 with --remote HOST:PORT: docs/remote.md")
		}
		return "", nil
	}
	remote := c.Remote.Address != ""
	for _, m := range c.Pool {
		remote = remote || m.Remote != ""
	}
	if !remote {
		return "", exitcode.New(exitcode.Config, fmt.Errorf("%w: %s=1 without a remote plugin: the Network division reaches the SUT over the network",
			config.ErrConfig, config.KeyRemoteNetworkDivision), "pass --remote HOST:PORT, or a pool member @HOST:PORT: docs/remote.md")
	}
	return "network division: the LoadGen node sends each query's sample data to the SUT node with the query, in the timed path; " +
		"no sample data is sent to it ahead, at LoadSamples", nil
}
