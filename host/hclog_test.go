package host

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHclogQuietWarnings: go-plugin's warning that a remote plugin's
// stdio sync does nothing is debug, not a warning; other warnings stay.
func TestHclogQuietWarnings(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := newHclog(t.Context(), slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.Warn("stdio service unavailable, run will do nothing")
	assert.Empty(t, buf.String())
	l.Warn("plugin failed to exit gracefully")
	assert.Contains(t, buf.String(), "level=WARN msg=\"plugin failed to exit gracefully\"")
}
