package host

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
)

// FuzzSessionCompletions feeds the subprocess receiver arbitrary
// Completions messages with ids 0..7 in flight: it must never panic,
// deliver an id not in flight, or deliver an id twice; anything else than
// a clean message ends the backend with ErrProtocol.
func FuzzSessionCompletions(f *testing.F) {
	recs, data := abi.AppendCompletion(nil, nil, 1, abi.OK, []byte("abc"), 2)
	recs, data = abi.AppendCompletion(recs, data, 2, abi.Internal, []byte("oops"), 0)
	f.Add(recs, data, false)
	f.Add(recs, data, true)
	dup, dupData := abi.AppendCompletion(recs, data, 1, abi.OK, nil, 0)
	f.Add(dup, dupData, false)
	f.Add(recs[:30], data, false)
	f.Add([]byte{}, []byte("x"), false)
	f.Fuzz(func(t *testing.T, records, data []byte, first bool) {
		b := newProcessBackend(context.Background(), "fuzz", Config{Logger: slog.New(slog.DiscardHandler)}.withDefaults())
		for id := range uint64(8) {
			b.inflight.add(id)
		}
		rec := newRecorder()
		b.SetHandler(rec)
		b.deliver(records, data, first, nil)
		require.Empty(t, rec.dups)
		for id := range rec.done {
			require.Less(t, id, uint64(8), "delivered an id never issued")
		}
		if err := b.Err(); err != nil {
			require.ErrorIs(t, err, ErrProtocol)
		}
		if _, err := abi.ParseCompletions(records, data); err != nil {
			require.ErrorIs(t, b.Err(), ErrProtocol, "a malformed frame ends the backend")
		}
	})
}

// FuzzParseHclogLine checks that no stderr line can make the host panic
// (go-plugin's own parser does on {"@message": 5}).
func FuzzParseHclogLine(f *testing.F) {
	f.Add([]byte(`{"@level":"info","@message":"hello","@timestamp":"2026-01-01T00:00:00.000000Z","k":1}`))
	f.Add([]byte(`{"@message": 5, "@level": []}`))
	f.Add([]byte(`panic: boom`))
	f.Add([]byte(`{"@message":"x","@level":"WARN","@module":"plugin.trt"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		level, msg, attrs, ok := parseHclogLine(line)
		if !ok {
			require.Empty(t, msg)
			return
		}
		_ = level
		for _, a := range attrs {
			require.NotEmpty(t, a.Key)
		}
		// The whole forwarder copes too.
		tail := newLineLogger(context.Background(), slog.New(slog.DiscardHandler), slog.LevelInfo, "stderr")
		forwardStderr(context.Background(), io.NopCloser(strings.NewReader(string(line)+"\n")), slog.New(slog.DiscardHandler), tail)
	})
}
