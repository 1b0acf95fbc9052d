package exitcode

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/exit-codes.md")

func TestDocMatchesTable(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "docs", "exit-codes.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(Markdown()), 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/exitcode -update")
	assert.Equal(t, Markdown(), string(got), "docs/exit-codes.md is stale: go test ./internal/exitcode -update")
}

func TestTableIsSortedAndUnique(t *testing.T) {
	t.Parallel()
	rows := Table()
	seen := map[string]bool{}
	for i, r := range rows {
		if i > 0 {
			assert.Greater(t, r.Code, rows[i-1].Code)
		}
		assert.False(t, seen[r.Name], "duplicate name %s", r.Name)
		seen[r.Name] = true
		assert.NotEmpty(t, r.Meaning)
		assert.NotEmpty(t, r.Action)
	}
}

func TestOf(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want Code
		hint string
	}{
		{name: "nil", err: nil, want: OK},
		{name: "plain", err: base, want: Internal},
		{name: "classified", err: New(Dataset, base, "check the path"), want: Dataset, hint: "check the path"},
		{name: "wrapped", err: fmt.Errorf("run: %w", New(Config, base, "")), want: Config},
		// The outermost classification wins, the first non-empty hint shows.
		{name: "reclassified", err: New(PluginFailed, New(Dataset, base, "inner"), ""), want: PluginFailed, hint: "inner"},
		{name: "hint keeps code", err: WithHint(New(Usage, base, ""), "see -h"), want: Usage, hint: "see -h"},
		{name: "canceled", err: fmt.Errorf("run: %w", context.Canceled), want: Interrupted},
		{name: "errorf", err: Errorf(SubmissionInvalid, "bad %d", 3), want: SubmissionInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Of(tt.err))
			assert.Equal(t, tt.hint, Hint(tt.err))
		})
	}
	assert.NoError(t, New(Usage, nil, "x"))
	assert.NoError(t, WithHint(nil, "x"))
}

func TestString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "plugin-abi", PluginABI.String())
	assert.Equal(t, "exit(77)", Code(77).String())
}
