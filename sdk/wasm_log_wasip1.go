//go:build wasip1

package sdk

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
)

// hostLogHandler writes each record as one line through the host's log
// import, at the record's level: "message key=value ...".
type hostLogHandler struct {
	w     *hostLogWriter
	inner slog.Handler
}

// hostLogWriter is the buffer the text handlers of one logger tree
// format into.
type hostLogWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *hostLogWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

func newHostLogger() *slog.Logger {
	w := &hostLogWriter{}
	inner := slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
				return slog.Attr{}
			}
			return a
		}})
	return slog.New(&hostLogHandler{w: w, inner: inner})
}

func (h *hostLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *hostLogHandler) Handle(ctx context.Context, r slog.Record) error {
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	h.w.buf.Reset()
	h.w.buf.WriteString(r.Message)
	h.w.buf.WriteByte(' ')
	err := h.inner.Handle(ctx, r)
	line := bytes.TrimRight(h.w.buf.Bytes(), " \n")
	hostLog(int32(r.Level), bytesPtr(line), uint32(len(line)))
	return err
}

func (h *hostLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &hostLogHandler{w: h.w, inner: h.inner.WithAttrs(as)}
}

func (h *hostLogHandler) WithGroup(name string) slog.Handler {
	return &hostLogHandler{w: h.w, inner: h.inner.WithGroup(name)}
}
