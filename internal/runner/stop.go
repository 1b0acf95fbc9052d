package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mlperf-host/mlperf-host/host"
)

// closeGrace is how long an interrupted run lets the plugin close before
// it is killed: the LoadGen already waited for the samples in flight.
const closeGrace = time.Second

// ErrStopNow is the cause a plugin is stopped with when Spec.Stop closes.
var ErrStopNow = errors.New("second interrupt: stopping now")

// watchStop kills b when stop closes, until the returned function is
// called; it returns once the watcher has ended.
func watchStop(b host.Backend, stop <-chan struct{}) (end func()) {
	if stop == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-stop:
			host.Kill(b, ErrStopNow)
		case <-quit:
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// closeBackend closes b. After an interrupt (ctx done) the plugin gets
// closeGrace to close, or less when stop closes; then it is killed: a
// plugin hung with samples in flight or in its Close must not hold the
// exit for its whole close timeout.
func closeBackend(ctx context.Context, b host.Backend, stop <-chan struct{}) error {
	if ctx.Err() == nil {
		return b.Close()
	}
	done := make(chan error, 1)
	go func() { done <- b.Close() }()
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	case <-stop:
	}
	host.Kill(b, fmt.Errorf("interrupted, and the plugin did not close within %v", closeGrace))
	return <-done
}

// closePlugin closes b after the test and tells the plugin's failure
// during the test (failed: the run's error) from its failure while
// closing (closeErr: a warning, for the result was measured before). A
// close failure that follows a failure during the test, or an interrupt
// (which stops the plugin on purpose), is no news and is dropped.
func closePlugin(ctx context.Context, b host.Backend, stop <-chan struct{}) (failed, closeErr error) {
	if err := b.Err(); err != nil && !errors.Is(err, host.ErrClosed) {
		failed = err
	}
	closeErr = closeBackend(ctx, b, stop)
	if closeErr == nil {
		closeErr = b.Err() // a failure Close noticed without returning it
	}
	if failed != nil || ctx.Err() != nil || errors.Is(closeErr, host.ErrClosed) {
		closeErr = nil
	}
	return failed, closeErr
}
