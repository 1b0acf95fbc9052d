package wire

import (
	"context"
	"sync"
)

// watcher closes a connection when the context of its exchange ends.
// One registration ([context.AfterFunc]) serves every exchange made
// with the same context, as the SDK's Infer calls are (its session's):
// registering per exchange cost more than a streamed request's parsing
// of a frame. The end of the context closes the connection only while
// an exchange is under way; an idle connection stays open for the
// next exchange, made with another context.
type watcher struct {
	mu sync.Mutex
	// cur is the registration of the context exchanges use now, nil
	// when none.
	cur *watch
	// busy says an exchange is under way; canceled says the end of
	// its context closed the connection.
	busy, canceled bool
	// close closes the connection.
	close func() error
}

// watch is one context's registration.
type watch struct {
	w    *watcher
	done <-chan struct{}
	stop func() bool
}

// begin starts an exchange made with ctx: it registers ctx unless it is
// already, and reports ctx's error when it has ended.
func (w *watcher) begin(ctx context.Context) error {
	done := ctx.Done()
	w.mu.Lock()
	if w.cur != nil && w.cur.done != done {
		w.cur.stop() // if it already ran, its abort finds w.cur changed
		w.cur = nil
	}
	if w.cur == nil && done != nil {
		r := &watch{w: w, done: done}
		w.cur = r
		r.stop = context.AfterFunc(ctx, r.abort) // runs later: abort waits for mu
	}
	w.busy, w.canceled = true, false
	w.mu.Unlock()
	if err := ctx.Err(); err != nil {
		w.end()
		return err
	}
	return nil
}

// end ends the exchange; canceled says the end of its context closed
// the connection.
func (w *watcher) end() (canceled bool) {
	w.mu.Lock()
	canceled = w.canceled
	w.busy = false
	w.mu.Unlock()
	return canceled
}

// stop drops the registration, for the connection's close.
func (w *watcher) stop() {
	w.mu.Lock()
	if w.cur != nil {
		w.cur.stop()
		w.cur = nil
	}
	w.mu.Unlock()
}

// abort closes the connection at the end of the context, when it is
// still the one exchanges use and one is under way.
func (r *watch) abort() {
	w := r.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != r {
		return
	}
	w.cur = nil
	if w.busy {
		w.canceled = true
		_ = w.close()
	}
}
