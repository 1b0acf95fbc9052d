package sdk

import (
	"context"
	"log/slog"
)

type loggerKey struct{}

// Logger returns the logger the SDK put in ctx: every context the SDK
// passes to a Backend method carries one. Its lines reach the host's log,
// tagged with the plugin's name: a subprocess writes hclog JSON on stderr,
// a WASM guest calls the host's log import. Logger never returns nil; a
// context without a logger gets one that discards.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// WithLogger returns a copy of ctx carrying l, for calling a Backend
// directly (in tests) the way the SDK does.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}
