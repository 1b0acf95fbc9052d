package host

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrStopped: the caller stopped the plugin with [Kill] (a second Ctrl-C,
// a plugin that would not close) or canceled a call it was running.
var ErrStopped = errors.New("stopped by the host")

// killer is implemented by the backends of this package.
type killer interface{ kill(cause error) }

// Kill ends b now, from any goroutine, when its caller gives up on it: every
// sample in flight fails with a [*PluginError] wrapping [ErrStopped] and
// cause, a subprocess plugin is killed with its process group (a reattached
// one is left running and let go), a WASM guest in a call is stopped at its
// next loop iteration (GuardLoops) or closed (GuardStrict), and Close then
// returns without waiting for samples or a Close call. Close must still be
// called to release what the host holds. Kill reports whether b is a
// backend of this package; others are left alone.
func Kill(b Backend, cause error) bool {
	k, ok := b.(killer)
	if ok {
		k.kill(cause)
	}
	return ok
}

func stopError(plugin, op string, cause error) *PluginError {
	return &PluginError{Plugin: plugin, Op: op, Err: fmt.Errorf("%w: %w", ErrStopped, cause)}
}

func (b *processBackend) kill(cause error) {
	b.fatal(stopError(b.name, "stop", cause))
	b.killProcess()
}

func (b *wasmBackend) kill(cause error) {
	b.fatal(stopError(b.name, "stop", cause))
	for _, in := range b.insts {
		// Every instance, not only those in a call: one about to enter a
		// call stops at its first loop iteration (or finds its module
		// closed) too.
		if in.abort.Swap(true) {
			continue
		}
		if in.callStart.Load() != 0 {
			b.abandon(in, b.st.Err())
		} else if b.guard == GuardStrict {
			_ = in.mod.CloseWithExitCode(b.ctx, 124)
		}
	}
}

// stopOnCancel makes the cancellation of ctx stop the guest calls in
// progress (and so the backend: a guest stopped in the middle of a call is
// in no known state) rather than wait for them; the returned function
// stops watching.
func (b *wasmBackend) stopOnCancel(ctx context.Context, op callOp) func() bool {
	return context.AfterFunc(ctx, func() {
		b.kill(fmt.Errorf("%s interrupted: %w", op, context.Cause(ctx)))
	})
}

// closeHang is the error of a plugin that did not answer Close within the
// close timeout.
func closeHang(plugin string, timeout time.Duration, what string) *PluginError {
	return &PluginError{Plugin: plugin, Op: "close", Err: fmt.Errorf(
		"%w: no answer to Close within %v; the host %s", ErrHang, timeout, what)}
}
