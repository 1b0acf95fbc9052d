//go:build !wasip1

package sdk

import (
	"io"
	"log/slog"
	"sync"
)

// lockedWriter serializes the writes of the loggers that share stderr, so
// that each line arrives whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// newStderrLogger returns a logger that writes hclog's JSON line format
// ({"@level":"info","@message":"...","@timestamp":"...",...}), which
// go-plugin hosts parse and forward at the line's level.
func newStderrLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: hclogAttr}))
}

// hclogAttr renames slog's built-in keys to hclog's.
func hclogAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		return slog.String("@timestamp", a.Value.Time().Format(hclogTimeFormat))
	case slog.LevelKey:
		l, _ := a.Value.Any().(slog.Level)
		return slog.String("@level", hclogLevel(l))
	case slog.MessageKey:
		a.Key = "@message"
	}
	return a
}

// hclogTimeFormat is hclog's JSON timestamp layout.
const hclogTimeFormat = "2006-01-02T15:04:05.000000Z07:00"

func hclogLevel(l slog.Level) string {
	switch {
	case l < slog.LevelDebug:
		return "trace"
	case l < slog.LevelInfo:
		return "debug"
	case l < slog.LevelWarn:
		return "info"
	case l < slog.LevelError:
		return "warn"
	}
	return "error"
}
