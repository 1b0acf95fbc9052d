package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlacementNotes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts map[string]string
		want []string
	}{
		{name: "none"},
		{name: "off", opts: map[string]string{"start_from_device": "false", "end_on_device": " Off "}},
		{name: "on", opts: map[string]string{"end_on_device": "1", "start_from_device": "auto", "streams": "2"},
			want: []string{"start_from_device=auto", "end_on_device=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, PlacementNotes(tt.opts))
		})
	}
}

// TestPlacementInDetailLog: a run whose plugin options place data where
// the rules need approval says so in its detail log.
func TestPlacementInDetailLog(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		_, p := oracle(t, nil)
		out := t.TempDir()
		flags := []string{"plugin", "oracle", "scenario", "Offline", "out", out,
			"settings.min_duration", "0", "settings.min_query_count", "32"}
		if on {
			flags = append(flags, "options.oracle.start_from_device", "true")
		}
		_, err := Run(context.Background(), Spec{Config: load(t, flags...), Plugins: p})
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(out, "mlperf_log_detail.txt"))
		require.NoError(t, err)
		const msg = "plugin oracle places data where the closed division needs the MLPerf committee's approval: start_from_device=true"
		if on {
			assert.Contains(t, string(b), msg)
		} else {
			assert.NotContains(t, string(b), "committee's approval")
		}
	}
}
