package conformance

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
)

// collector is a host.Handler that records completions by id.
type collector struct {
	mu      sync.Mutex
	got     map[uint64]host.Completion
	dups    []uint64
	unknown []uint64
	want    map[uint64]bool
	left    int
	done    chan struct{}
}

func newCollector() *collector { return &collector{got: map[uint64]host.Completion{}} }

// expect arms the collector for ids; wait returns once all completed.
func (c *collector) expect(recs []abi.IssueRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.want = map[uint64]bool{}
	for _, r := range recs {
		c.want[r.ID] = true
	}
	c.left = len(recs)
	c.done = make(chan struct{})
	if c.left == 0 {
		close(c.done)
	}
}

func (c *collector) Complete(batch []host.Completion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range batch {
		x.Data = bytes.Clone(x.Data)
		switch {
		case !c.want[x.ID]:
			c.unknown = append(c.unknown, x.ID)
		case c.gotHas(x.ID):
			c.dups = append(c.dups, x.ID)
		default:
			c.got[x.ID] = x
			c.left--
			if c.left == 0 {
				close(c.done)
			}
		}
	}
}

func (c *collector) gotHas(id uint64) bool { _, ok := c.got[id]; return ok }

func (c *collector) FirstTokens([]host.Completion) {}

// wait waits for the expected completions, the backend's end or ctx.
func (c *collector) wait(ctx context.Context, b host.Backend) error {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	select {
	case <-done:
	case <-b.Done():
		return fmt.Errorf("plugin stopped serving: %w", b.Err())
	case <-ctx.Done():
		c.mu.Lock()
		defer c.mu.Unlock()
		return fmt.Errorf("%d of %d samples never completed: %w", c.left, len(c.want), ctx.Err())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.dups) > 0 || len(c.unknown) > 0 {
		return fmt.Errorf("completions of duplicate ids %v and unknown ids %v", c.dups, c.unknown)
	}
	return nil
}

func (c *collector) get(id uint64) host.Completion {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got[id]
}
