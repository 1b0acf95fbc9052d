package inproc

import (
	"fmt"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// completer is the sdk.Completer of one worker: it checks every id
// against the Infer call in progress and hands completions to the handler
// as they come, without copying (the handler's batch is valid during the
// call, as the SDK's data is during Complete).
type completer struct {
	a  *backend
	mu sync.Mutex
	// pending maps the call's ids to whether they are still open.
	pending   map[uint64]bool
	open      int
	ended     bool
	violation error
	one       [1]host.Completion
}

var _ sdk.Completer = (*completer)(nil)

func (c *completer) start(recs []abi.IssueRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = make(map[uint64]bool, len(recs))
	}
	clear(c.pending)
	for _, r := range recs {
		c.pending[r.ID] = true
	}
	c.open, c.ended, c.violation = len(recs), false, nil
}

// finish ends the call and returns the samples left open.
func (c *completer) finish() []abi.IssueRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	var left []abi.IssueRecord
	for id, open := range c.pending {
		if open {
			left = append(left, abi.IssueRecord{ID: id})
		}
	}
	return left
}

// take checks that id is open and closes it unless peek.
func (c *completer) take(id uint64, what string, peek bool) bool {
	open, known := c.pending[id]
	switch {
	case c.ended:
		c.note(fmt.Errorf("%w: %s for sample id %d after Infer returned", host.ErrProtocol, what, id))
	case !known:
		c.note(fmt.Errorf("%w: %s for sample id %d, which is not in this query", host.ErrProtocol, what, id))
	case !open:
		c.note(fmt.Errorf("%w: %s for sample id %d, which was completed before", host.ErrProtocol, what, id))
	default:
		if !peek {
			c.pending[id] = false
			c.open--
		}
		return true
	}
	return false
}

func (c *completer) note(err error) {
	if c.violation == nil {
		c.violation = err
	}
}

func (c *completer) deliver(id uint64, code abi.Code, data []byte, nTokens int64, first bool) {
	c.one[0] = host.Completion{ID: id, Status: code, Data: data, NTokens: nTokens}
	if h := c.a.handler.Load().h; first {
		h.FirstTokens(c.one[:])
	} else {
		h.Complete(c.one[:])
	}
	c.one[0] = host.Completion{}
}

func (c *completer) Complete(id uint64, data []byte, nTokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.take(id, "completion", false) {
		c.deliver(id, abi.OK, data, nTokens, false)
	}
}

func (c *completer) FirstToken(id uint64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.take(id, "first token", true) {
		c.deliver(id, abi.OK, data, 1, true)
	}
}

func (c *completer) Fail(id uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.take(id, "failure", false) {
		c.deliver(id, abi.Internal, []byte(err.Error()), 0, false)
	}
}
