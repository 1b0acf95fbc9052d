package sdk

import (
	"sync"
	"sync/atomic"

	"github.com/mlperf-host/mlperf-host/abi"
)

// unread counts the bytes of completions and first tokens an output holds
// that its host has not received: appended, not yet sent. A host that
// issues and never reads would otherwise make the plugin hold every
// output it ever produced. Past limit the output is full: it drops what
// comes next, and err says why the session failed.
type unread struct {
	limit int64
	bytes atomic.Int64
	peak  atomic.Int64
	once  sync.Once
	// full is closed when the count passed limit; err is set before.
	full chan struct{}
	err  error
	// onFull runs once, when the count passes limit (the session's
	// cancel); set before the first completion.
	onFull func(error)
}

func newUnread(limit int64) *unread {
	if limit <= 0 {
		limit = abi.DefaultMaxUnreadBytes
	}
	return &unread{limit: limit, full: make(chan struct{})}
}

// isFull says whether the count passed the limit.
func (u *unread) isFull() bool {
	select {
	case <-u.full:
		return true
	default:
		return false
	}
}

// add counts n bytes just appended.
func (u *unread) add(n int) {
	b := u.bytes.Add(int64(n))
	for p := u.peak.Load(); b > p && !u.peak.CompareAndSwap(p, b); p = u.peak.Load() {
	}
	if b > u.limit {
		u.once.Do(func() {
			u.err = Errorf(abi.ResourceExhausted, "the host left %d bytes of completions unread, more than the %d this plugin holds for one host (%s): it stopped reading its session",
				b, u.limit, abi.MaxUnreadBytesEnv)
			close(u.full)
			if u.onFull != nil {
				u.onFull(u.err)
			}
		})
	}
}

// sent uncounts n bytes the host was sent.
func (u *unread) sent(n int) { u.bytes.Add(-int64(n)) }

// failed is the cause of a full output; nil while it is not.
func (u *unread) failed() error {
	if u.isFull() {
		return u.err
	}
	return nil
}
