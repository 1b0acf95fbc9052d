package accel

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// NUMANode is one node of a NUMA configuration: the devices attached near
// a set of CPUs.
type NUMANode struct {
	Devices []int
	CPUs    []int
}

// ParseNUMA parses a NUMA configuration in the form NVIDIA's harness uses,
// nodes separated by "&", each DEVICES:CPUS with lists and ranges, e.g.
// "0-3:0-27,56-83&4-7:28-55,84-111". Empty gives nil (no placement).
//
// # Errors
//
// A malformed list, a node without devices or CPUs, or a device in two
// nodes.
func ParseNUMA(s string) ([]NUMANode, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []NUMANode
	seen := map[int]bool{}
	for part := range strings.SplitSeq(s, "&") {
		devs, cpus, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("numa node %q: want DEVICES:CPUS", part)
		}
		n := NUMANode{}
		var err error
		if n.Devices, err = ParseDevices(devs); err != nil || n.Devices == nil {
			return nil, fmt.Errorf("numa node %q: devices: %w", part, orEmpty(err))
		}
		if n.CPUs, err = ParseDevices(cpus); err != nil || n.CPUs == nil {
			return nil, fmt.Errorf("numa node %q: cpus: %w", part, orEmpty(err))
		}
		for _, d := range n.Devices {
			if seen[d] {
				return nil, fmt.Errorf("numa node %q: device %d is in two nodes", part, d)
			}
			seen[d] = true
		}
		slices.Sort(n.CPUs)
		out = append(out, n)
	}
	return out, nil
}

// FormatNUMA spells nodes as ParseNUMA reads them; nil is "".
func FormatNUMA(nodes []NUMANode) string {
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = FormatDevices(n.Devices) + ":" + FormatDevices(n.CPUs)
	}
	return strings.Join(parts, "&")
}

func orEmpty(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("none listed")
}

// NodeOf returns the index of the node device is in, or -1.
func NodeOf(nodes []NUMANode, device int) int {
	for i, n := range nodes {
		if slices.Contains(n.Devices, device) {
			return i
		}
	}
	return -1
}

// CPUsOf returns the CPUs of device's node, or nil when it is in none.
func CPUsOf(nodes []NUMANode, device int) []int {
	if i := NodeOf(nodes, device); i >= 0 {
		return nodes[i].CPUs
	}
	return nil
}

// OnCPUs runs f on the calling goroutine's OS thread, restricted to cpus
// while f runs (nil: where it may run now): threads f creates inherit
// them, and pages f touches first are placed near them. The thread gets
// its CPUs back before it returns to the Go scheduler.
func OnCPUs(cpus []int, f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cpus != nil {
		restore, err := Pin(cpus)
		if err != nil {
			return err
		}
		defer restore()
	}
	return f()
}

// CheckNUMA pins the calling thread to each node's CPUs and back, so that
// a node this process may not run on fails Load rather than a batch.
func CheckNUMA(nodes []NUMANode) error {
	for _, n := range nodes {
		if err := OnCPUs(n.CPUs, func() error { return nil }); err != nil {
			return fmt.Errorf("numa_config: %w", err)
		}
	}
	return nil
}
