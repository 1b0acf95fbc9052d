package sdk

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
)

// call is the [Completer] of one Infer call. It checks every id against
// the call's samples, so each is reported exactly once, and hands results
// to the session's output as they come. A worker reuses one call for all
// its Infer calls: in steady state nothing allocates.
type call struct {
	out  SessionOutput
	name string
	// lane, when the output has lanes, takes the completions under mu
	// instead of out.
	lane *lane

	mu sync.Mutex
	// cond wakes a Submit call's worker waiting for the call's last
	// completion.
	cond *sync.Cond
	ids  []uint64
	done []bool
	open int
	// next is where the next completion is looked for first: backends
	// mostly complete in query order.
	next int
	// index maps ids to positions for large calls completed out of order;
	// built on first need.
	index   map[uint64]int
	indexed bool
	ended   bool
}

var _ Completer = (*call)(nil)

// linearMax is the largest call searched linearly for an id.
const linearMax = 16

func newCall(out SessionOutput, name string) *call {
	c := &call{out: out, name: name}
	c.cond = sync.NewCond(&c.mu)
	if lo, ok := out.(laneOutput); ok {
		c.lane = lo.newLane(&c.mu)
	}
	return c
}

// complete hands one completion to the lane or the output; c.mu is held.
func (c *call) complete(id uint64, code abi.Code, data []byte, nTokens int64) {
	if c.lane != nil {
		c.lane.complete(id, code, data, nTokens)
		return
	}
	c.out.Complete(id, code, data, nTokens)
}

// start prepares the call for the samples of q.
func (c *call) start(q Query) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids, c.done = c.ids[:0], c.done[:0]
	for _, s := range q.Samples {
		c.ids = append(c.ids, s.ID)
		c.done = append(c.done, false)
	}
	c.open, c.next, c.indexed, c.ended = len(q.Samples), 0, false, false
}

// find returns the position of id in the call, or -1.
func (c *call) find(id uint64) int {
	if c.next < len(c.ids) && c.ids[c.next] == id {
		c.next++
		return c.next - 1
	}
	if len(c.ids) <= linearMax {
		for i, v := range c.ids {
			if v == id {
				return i
			}
		}
		return -1
	}
	if !c.indexed {
		if c.index == nil {
			c.index = make(map[uint64]int, len(c.ids))
		}
		clear(c.index)
		for i, v := range c.ids {
			if _, dup := c.index[v]; !dup {
				c.index[v] = i
			}
		}
		c.indexed = true
	}
	if i, ok := c.index[id]; ok {
		return i
	}
	return -1
}

// take checks that id is open in this call and, unless peek, closes it.
// c.mu is held.
func (c *call) take(id uint64, what string, peek bool) bool {
	if c.ended {
		c.out.Violation(id, fmt.Errorf("backend %q: %s for sample id %d after its Infer call returned", c.name, what, id))
		return false
	}
	i := c.find(id)
	switch {
	case i < 0:
		c.out.Violation(id, fmt.Errorf("backend %q: %s for sample id %d, which is not in this Infer call", c.name, what, id))
		return false
	case c.done[i]:
		c.out.Violation(id, fmt.Errorf("backend %q: %s for sample id %d, which was completed before", c.name, what, id))
		return false
	}
	if !peek {
		c.done[i] = true
		c.open--
		if c.open == 0 {
			c.cond.Signal()
		}
	}
	return true
}

// wait waits until every sample of the call was answered, or ctx ends: it
// then returns ctx's error and the samples still open fail with it.
func (c *call) wait(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.open > 0 && ctx.Err() == nil {
		c.cond.Wait()
	}
	if c.open > 0 {
		return ctx.Err()
	}
	return nil
}

// wake wakes a wait to look at its context again.
func (c *call) wake() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cond.Broadcast()
}

// Complete implements [Completer].
func (c *call) Complete(id uint64, data []byte, nTokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.take(id, "Complete", false) {
		c.complete(id, abi.OK, data, nTokens)
	}
}

// FirstToken implements [Completer].
func (c *call) FirstToken(id uint64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.take(id, "FirstToken", true) {
		if c.lane != nil {
			c.lane.firstToken(id, data)
			return
		}
		c.out.FirstToken(id, data)
	}
}

// Fail implements [Completer].
func (c *call) Fail(id uint64, err error) {
	if err == nil {
		err = errors.New("the backend failed the sample without saying why")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.take(id, "Fail", false) {
		c.complete(id, CodeOf(err), []byte(err.Error()), 0)
	}
}

// finish ends the call: every sample still open fails, with inferErr when
// Infer returned one, else with an error naming it.
func (c *call) finish(inferErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.open == 0 {
		return
	}
	var msg []byte
	code := abi.Internal
	if inferErr != nil {
		code, msg = CodeOf(inferErr), []byte(inferErr.Error())
	}
	for i, id := range c.ids {
		if c.done[i] {
			continue
		}
		c.done[i] = true
		if inferErr != nil {
			c.complete(id, code, msg, 0)
			continue
		}
		c.complete(id, code, fmt.Appendf(nil, "backend %q returned from Infer without completing sample id %d", c.name, id), 0)
	}
	c.open = 0
}
