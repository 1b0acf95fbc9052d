package host

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// lineLogger turns a plugin's output stream into one log record per line
// and keeps the last lines for error messages (a crash's last words).
type lineLogger struct {
	ctx    context.Context
	log    *slog.Logger
	level  slog.Level
	stream string

	mu      sync.Mutex
	partial []byte
	tail    []string // at most tailLines, oldest first
	// headline is the first line that announced a crash ("panic: ...",
	// "fatal error: ..."): a stack trace pushes it out of the tail.
	headline string
}

const (
	tailLines  = 8
	maxLineLen = 16 << 10
)

func newLineLogger(ctx context.Context, log *slog.Logger, level slog.Level, stream string) *lineLogger {
	return &lineLogger{ctx: ctx, log: log, level: level, stream: stream}
}

// Write logs every complete line of p; a line longer than maxLineLen is
// cut there.
func (w *lineLogger) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.partial = append(w.partial, p...)
			if len(w.partial) >= maxLineLen {
				w.emit(w.partial)
				w.partial = w.partial[:0]
			}
			break
		}
		if len(w.partial) > 0 {
			w.emit(append(w.partial, p[:i]...))
			w.partial = w.partial[:0]
		} else {
			w.emit(p[:i])
		}
		p = p[i+1:]
	}
	return n, nil
}

func (w *lineLogger) emit(line []byte) {
	s := strings.TrimRight(string(line), "\r")
	if s == "" {
		return
	}
	w.log.LogAttrs(w.ctx, w.level, s, slog.String("stream", w.stream))
	w.keepLocked(s)
}

// keep adds a line to the tail without logging it.
func (w *lineLogger) keep(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.keepLocked(s)
}

func (w *lineLogger) keepLocked(s string) {
	if w.headline == "" && (strings.HasPrefix(s, "panic: ") || strings.HasPrefix(s, "fatal error: ")) {
		w.headline = s
	}
	if len(w.tail) == tailLines {
		copy(w.tail, w.tail[1:])
		w.tail = w.tail[:tailLines-1]
	}
	w.tail = append(w.tail, s)
}

// Flush logs a last line without its newline.
func (w *lineLogger) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		w.emit(w.partial)
		w.partial = w.partial[:0]
	}
}

// Tail returns the last lines written, oldest first, after the crash
// headline if there is one and it is no longer among them.
func (w *lineLogger) Tail() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.headline != "" && !slices.Contains(w.tail, w.headline) {
		return append([]string{w.headline, "..."}, w.tail[max(0, len(w.tail)-3):]...)
	}
	return append([]string(nil), w.tail...)
}

// lastWords formats the tail of streams for an error message: "" when
// they are empty, else `; last output: "a" | "b"`.
func lastWords(streams ...*lineLogger) string {
	var lines []string
	for _, s := range streams {
		s.Flush()
		lines = append(lines, s.Tail()...)
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > tailLines+2 {
		lines = lines[len(lines)-tailLines-2:]
	}
	return "; last output: " + strings.Join(lines, " | ")
}
