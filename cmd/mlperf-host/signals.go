package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// errInterrupted is the cause of the context the first Ctrl-C cancels.
var errInterrupted = errors.New("interrupted (Ctrl-C or SIGTERM)")

// exitGrace is how long the process may take to end after the second
// signal before it exits regardless.
const exitGrace = 5 * time.Second

// interrupts handles SIGINT and SIGTERM: the first cancels ctx (the run
// stops issuing, waits briefly for the samples in flight, closes the
// plugin and writes its logs); the second closes stopNow (the plugin is
// killed and the logs written at once); a third, or exitGrace after the
// second, exits with code 130 there and then. stop ends the handling.
func interrupts(stderr io.Writer) (ctx context.Context, stopNow <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	now := make(chan struct{})
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel(errInterrupted)
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "mlperf-host: second interrupt: stopping the plugin now; a third exits at once")
		close(now)
		select {
		case <-sigs:
		case <-time.After(exitGrace):
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "mlperf-host: exiting without waiting; the detail log has every entry written so far")
		os.Exit(int(exitcode.Interrupted))
	}()
	return ctx, now, func() {
		signal.Stop(sigs)
		close(done)
		cancel(context.Canceled)
	}
}
