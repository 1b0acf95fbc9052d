package host

import (
	"context"
	"io"
	"log"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// hclogAdapter lets go-plugin log its own diagnostics through a
// *slog.Logger. (Plugins' stderr does not pass through it: the host reads
// and parses that itself, see stderrForwarder.)
type hclogAdapter struct {
	ctx  context.Context
	log  *slog.Logger
	name string
	args []any
}

var _ hclog.Logger = (*hclogAdapter)(nil)

func newHclog(ctx context.Context, l *slog.Logger) hclog.Logger {
	return &hclogAdapter{ctx: ctx, log: l.With("component", "go-plugin")}
}

var hclogLevels = map[hclog.Level]slog.Level{
	hclog.Trace: slog.LevelDebug - 4, hclog.Debug: slog.LevelDebug, hclog.Info: slog.LevelInfo,
	hclog.Warn: slog.LevelWarn, hclog.Error: slog.LevelError,
}

// hclogQuiet are go-plugin's warnings that say nothing to a user: a
// remote or reattached plugin has no stdio service for go-plugin to sync
// (the host reads a subprocess's output itself), so its sync "does
// nothing" by design. They are logged at debug level.
var hclogQuiet = map[string]bool{
	"stdio service unavailable, run will do nothing":                 true,
	"stdio service not available, stdout/stderr syncing unavailable": true,
}

func (a *hclogAdapter) Log(level hclog.Level, msg string, args ...any) {
	l, ok := hclogLevels[level]
	if !ok {
		l = slog.LevelInfo
	}
	if hclogQuiet[msg] {
		l = slog.LevelDebug
	}
	if a.log.Enabled(a.ctx, l) {
		a.log.Log(a.ctx, l, msg, append(append([]any(nil), a.args...), args...)...)
	}
}

func (a *hclogAdapter) Trace(msg string, args ...any) { a.Log(hclog.Trace, msg, args...) }
func (a *hclogAdapter) Debug(msg string, args ...any) { a.Log(hclog.Debug, msg, args...) }
func (a *hclogAdapter) Info(msg string, args ...any)  { a.Log(hclog.Info, msg, args...) }
func (a *hclogAdapter) Warn(msg string, args ...any)  { a.Log(hclog.Warn, msg, args...) }
func (a *hclogAdapter) Error(msg string, args ...any) { a.Log(hclog.Error, msg, args...) }

func (a *hclogAdapter) enabled(l hclog.Level) bool { return a.log.Enabled(a.ctx, hclogLevels[l]) }
func (a *hclogAdapter) IsTrace() bool              { return a.enabled(hclog.Trace) }
func (a *hclogAdapter) IsDebug() bool              { return a.enabled(hclog.Debug) }
func (a *hclogAdapter) IsInfo() bool               { return a.enabled(hclog.Info) }
func (a *hclogAdapter) IsWarn() bool               { return a.enabled(hclog.Warn) }
func (a *hclogAdapter) IsError() bool              { return a.enabled(hclog.Error) }
func (a *hclogAdapter) ImpliedArgs() []any         { return a.args }
func (a *hclogAdapter) Name() string               { return a.name }

func (a *hclogAdapter) With(args ...any) hclog.Logger {
	c := *a
	c.args = append(append([]any(nil), a.args...), args...)
	return &c
}

func (a *hclogAdapter) Named(name string) hclog.Logger {
	c := *a
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	return &c
}

func (a *hclogAdapter) ResetNamed(name string) hclog.Logger {
	c := *a
	c.name = name
	return &c
}

// SetLevel is ignored: the slog handler decides.
func (a *hclogAdapter) SetLevel(hclog.Level) {}

func (a *hclogAdapter) GetLevel() hclog.Level {
	for _, l := range []hclog.Level{hclog.Trace, hclog.Debug, hclog.Info, hclog.Warn, hclog.Error} {
		if a.enabled(l) {
			return l
		}
	}
	return hclog.Off
}

func (a *hclogAdapter) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(a.StandardWriter(opts), "", 0)
}

func (a *hclogAdapter) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return newLineLogger(a.ctx, a.log, slog.LevelInfo, "go-plugin")
}
