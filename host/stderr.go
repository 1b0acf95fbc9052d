package host

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
)

// forwardStderr reads a subprocess plugin's stderr line by line until EOF:
// hclog JSON lines ({"@level":"info","@message":"...",...}) become log
// records at their level with their fields; other lines (a Go panic's
// stack, a C library's chatter) are logged as they are. Every line also
// goes to tail, which keeps the last ones for error messages.
//
// It parses defensively: a plugin must not be able to crash the host with
// what it prints.
func forwardStderr(ctx context.Context, r io.Reader, log *slog.Logger, tail *lineLogger) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLineLen)
	for sc.Scan() {
		line := sc.Bytes()
		level, msg, attrs, hclogLine := parseHclogLine(line)
		if !hclogLine {
			level, msg, attrs = slog.LevelInfo, strings.TrimRight(string(line), "\r"), []slog.Attr{slog.String("stream", "stderr")}
		}
		if msg == "" {
			continue
		}
		log.LogAttrs(ctx, level, msg, attrs...)
		if !hclogLine || level >= slog.LevelInfo {
			tail.keep(msg) // debug chatter would push out the last words
		}
	}
	if err := sc.Err(); err != nil {
		log.Warn("reading plugin stderr", "err", err)
		_, _ = io.Copy(io.Discard, r)
	}
}

var hclogLevelNames = map[string]slog.Level{
	"trace": slog.LevelDebug - 4, "debug": slog.LevelDebug, "info": slog.LevelInfo,
	"warn": slog.LevelWarn, "warning": slog.LevelWarn, "error": slog.LevelError,
}

// parseHclogLine decodes one hclog JSON line; ok is false for anything
// else.
func parseHclogLine(line []byte) (level slog.Level, msg string, attrs []slog.Attr, ok bool) {
	if len(line) == 0 || line[0] != '{' {
		return 0, "", nil, false
	}
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return 0, "", nil, false
	}
	msg, ok = m["@message"].(string)
	if !ok {
		return 0, "", nil, false
	}
	name, _ := m["@level"].(string)
	level, known := hclogLevelNames[strings.ToLower(name)]
	if !known {
		level = slog.LevelInfo
	}
	for k, v := range m {
		switch k {
		case "@message", "@level", "@timestamp", "":
		case "@module":
			attrs = append(attrs, slog.Any("module", v))
		default:
			attrs = append(attrs, slog.Any(k, v))
		}
	}
	return level, msg, attrs, true
}
