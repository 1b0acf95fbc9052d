package loadgen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/loadgen"
)

// TestDetailMessages: the messages a run is given are in its detail log as
// generic_message entries, after the settings.
func TestDetailMessages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := loadgen.DefaultTestSettings()
	s.Scenario = loadgen.Offline
	s.MinDuration, s.MinQueryCount = 0, 10
	_, err := loadgen.StartTest(t.Context(), echoSUT{}, memQSL{}, s, loadgen.LogSettings{OutDir: dir},
		loadgen.WithDetailMessages("start_from_device=true", "second"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	require.NoError(t, err)
	detail := string(b)
	assert.Contains(t, detail, `"key": "generic_message", "value": "start_from_device=true"`)
	assert.Contains(t, detail, `"key": "generic_message", "value": "second"`)
	assert.Less(t, strings.Index(detail, "effective_min_duration_ms"), strings.Index(detail, "start_from_device=true"), "after the settings")
}
