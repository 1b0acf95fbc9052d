package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
)

// migKind is the Kind a plugin gives a MIG instance it lists but does not
// run on (the tensorrt plugin's devices of another process); migPrefix
// starts every MIG instance's UUID, as CUDA_VISIBLE_DEVICES takes it.
const (
	migKind   = "mig"
	migPrefix = "MIG-"
)

// expandMIG returns the pool's members with each mig= member replaced by
// one member per MIG instance its plugin lists (see migMembers). It starts
// the member's plugin once, with the member's environment, to read its
// devices.
func (p Plugins) expandMIG(ctx context.Context, c *config.Config) ([]config.PoolMember, error) {
	var out []config.PoolMember
	for _, m := range c.Pool {
		if m.MIG == "" {
			out = append(out, m)
			continue
		}
		b, err := p.openMember(ctx, c, m)
		if err != nil {
			return nil, fmt.Errorf("pool member %q: list its MIG instances: %w", m.Name, err)
		}
		devices := b.Info().Devices
		if err := b.Close(); err != nil {
			return nil, fmt.Errorf("pool member %q: list its MIG instances: %w", m.Name, err)
		}
		members, err := migMembers(m, devices)
		if err != nil {
			return nil, fmt.Errorf("pool member %q: %w", m.Name, err)
		}
		out = append(out, members...)
	}
	seen := map[string]bool{}
	for _, m := range out {
		if seen[m.Name] {
			return nil, fmt.Errorf("two pool members are named %q once mig= is expanded: name them with {name=...}", m.Name)
		}
		seen[m.Name] = true
	}
	return out, nil
}

// migMembers makes one member of m per MIG instance in devices (a device
// whose UUID starts with MIG-: those of kind mig, and the one the plugin
// runs on when its own environment gave it an instance), of m.MIG's
// profile unless it is "all": member k is named NAME-migK and runs with
// CUDA_VISIBLE_DEVICES set to its instance's UUID, each with m's model and
// options. No instance is an error naming what the plugin listed.
func migMembers(m config.PoolMember, devices []host.Device) ([]config.PoolMember, error) {
	var out []config.PoolMember
	var seen []string
	for _, d := range devices {
		if !strings.HasPrefix(d.UUID, migPrefix) && d.Kind != migKind {
			continue
		}
		seen = append(seen, d.Name)
		if m.MIG != "all" && !strings.HasSuffix(d.Name, " MIG "+m.MIG) {
			continue
		}
		if !strings.HasPrefix(d.UUID, migPrefix) {
			return nil, fmt.Errorf("mig=%s: device %d %q has no MIG UUID (%q)", m.MIG, d.ID, d.Name, d.UUID)
		}
		x := m
		x.MIG = ""
		x.Name = fmt.Sprintf("%s-mig%d", m.Name, len(out))
		x.Env = maps.Clone(m.Env)
		if x.Env == nil {
			x.Env = map[string]string{}
		}
		x.Env["CUDA_VISIBLE_DEVICES"] = d.UUID
		x.Options = maps.Clone(m.Options)
		out = append(out, x)
	}
	switch {
	case len(out) > 0:
		return out, nil
	case len(seen) == 0:
		return nil, errors.New("mig=" + m.MIG + ": the plugin lists no MIG instance (`nvidia-smi -L` lists them: is MIG mode on, " +
			"are GPU and compute instances created, and does the plugin find NVML?)")
	}
	return nil, fmt.Errorf("mig=%s: no MIG instance of that profile; the plugin lists %s", m.MIG, strings.Join(seen, ", "))
}
