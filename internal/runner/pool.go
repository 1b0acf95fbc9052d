package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// openPool opens every member of the pool key, one plugin instance each
// (with its own environment: its device or partition; or a remote
// plugin; a mig= member is one member per MIG instance, see expandMIG),
// checks each member's options against its plugin's schema, and makes
// them one host.Pool. A member that fails to open closes those opened before and
// names itself.
func (p Plugins) openPool(ctx context.Context, c *config.Config) (_ host.Backend, err error) {
	var members []host.PoolMember
	defer func() {
		if err != nil {
			for _, m := range members {
				_ = m.Backend.Close()
			}
		}
	}()
	pool, err := p.expandMIG(ctx, c)
	if err != nil {
		return nil, err
	}
	for i, m := range pool {
		b, err := p.openMember(ctx, c, m)
		if err != nil {
			return nil, fmt.Errorf("pool member %d %q: %w", i, m.Name, err)
		}
		pm := host.PoolMember{Name: m.Name, Backend: b, Model: m.Model, Options: c.PluginOptions(m.Plugin)}
		maps.Copy(pm.Options, m.Options)
		members = append(members, pm)
		if err := b.Info().CheckOptions(pm.Options); err != nil {
			var oe *abi.OptionError
			if errors.As(err, &oe) {
				err = &config.Error{Key: config.KeyPool, Value: m.String(), Source: poolSource(c), Err: fmt.Errorf("member %q: %w", m.Name, oe)}
			}
			return nil, exitcode.New(exitcode.Config, err, "`mlperf-host plugins describe "+cmp.Or(m.Plugin, "PLUGIN")+"` lists the plugin's options")
		}
	}
	return host.NewPool(ctx, members, host.PoolConfig{
		Name: PoolName, Depth: c.Host.PoolDepth, CloseTimeout: c.Host.CloseTimeout, Logger: p.Logger,
	})
}

// openMember opens one member: its plugin, with its environment, or the
// plugin served at its remote address.
func (p Plugins) openMember(ctx context.Context, c *config.Config, m config.PoolMember) (host.Backend, error) {
	if m.Remote != "" {
		return p.openRemote(ctx, c, m.Remote)
	}
	hc := p.HostConfig(c)
	for _, k := range slices.Sorted(maps.Keys(m.Env)) {
		hc.Env = append(hc.Env, k+"="+m.Env[k])
	}
	return p.openNamed(ctx, c, m.Plugin, hc)
}

// SUTLabel says what a run measures: "plugin NAME", "a pool of N
// (MEMBER, ...)" or "the plugin served at HOST:PORT".
func SUTLabel(c *config.Config) string {
	if c.Remote.Address != "" && len(c.Pool) == 0 {
		return "the plugin served at " + c.Remote.Address
	}
	if len(c.Pool) == 0 {
		return "plugin " + c.Plugin
	}
	names := make([]string, len(c.Pool))
	for i, m := range c.Pool {
		names[i] = m.Name
		if m.MIG != "" {
			names[i] += " mig=" + m.MIG
		}
	}
	return fmt.Sprintf("a pool of %d (%s)", len(c.Pool), strings.Join(names, ", "))
}

// PoolName is a pool's name: the SUT's name in the logs.
const PoolName = "pool"

// poolSource is where the pool key came from.
func poolSource(c *config.Config) config.Source {
	if v, ok := c.Lookup(config.KeyPool); ok {
		return v.Source
	}
	return config.Source{}
}

// poolStats returns a pool's statistics; nil for any other backend.
func poolStats(b host.Backend) *host.PoolStats {
	p, ok := b.(interface{ Stats() host.PoolStats })
	if !ok {
		return nil
	}
	st := p.Stats()
	return &st
}

// checkPoolCoverage fails an accuracy run in which a member of the pool
// answered no sample: its accuracy was never checked. The counts are the
// pool's since it opened, so in a submission run a sample of the
// performance pass counts too.
func checkPoolCoverage(st *host.PoolStats) error {
	if st == nil {
		return nil
	}
	var idle []string
	for _, m := range st.Members {
		if m.Total == 0 {
			idle = append(idle, m.Name)
		}
	}
	if len(idle) == 0 {
		return nil
	}
	return exitcode.New(exitcode.InvalidResult, fmt.Errorf("pool members %v answered no sample of the accuracy run: their accuracy was not checked", idle),
		"run accuracy with more samples than the pool has members, or remove the members that get none")
}
