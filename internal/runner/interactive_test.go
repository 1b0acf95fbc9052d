package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// TestInteractiveSettings: an Interactive run is LoadGen's Server under
// the -interactive model's rules and the user's rate for that model.
func TestInteractiveSettings(t *testing.T) {
	t.Parallel()
	user := filepath.Join(t.TempDir(), "user.conf")
	require.NoError(t, os.WriteFile(user, []byte("llama3_1-8b.Server.target_qps = 3\nllama3_1-8b-interactive.Server.target_qps = 7\n"), 0o644))
	c, err := config.Load(config.Inputs{ReadConf: ReadConf, Flags: []config.FlagValue{
		{Key: "benchmark", Value: "llama3.1-8b", Flag: "--benchmark"},
		{Key: "scenario", Value: "Interactive", Flag: "--scenario"},
		{Key: "user_conf", Value: user, Flag: "--user-conf"},
	}})
	require.NoError(t, err)
	s, err := TestSettings(c)
	require.NoError(t, err)
	assert.Equal(t, loadgen.Server, s.Scenario)
	assert.InDelta(t, 7.0, s.ServerTargetQPS, 0)
	assert.Equal(t, time.Duration(0), s.ServerTargetLatency)
	assert.Equal(t, 500*time.Millisecond, s.ServerTTFTLatency)
	assert.Equal(t, 30*time.Millisecond, s.ServerTPOTLatency)
	assert.True(t, s.UseTokenLatencies)
	assert.True(t, s.SampleConcatenatePermutation)
	assert.Equal(t, uint64(13368), s.PerformanceSampleCountOverride)

	// Without a rate of the user's (nor a calibration's), the hint names
	// the line to write.
	c, err = config.Load(config.Inputs{Flags: []config.FlagValue{
		{Key: "benchmark", Value: "llama3.1-8b", Flag: "--benchmark"},
		{Key: "scenario", Value: "Interactive", Flag: "--scenario"},
		{Key: config.KeyCalibrateMode, Value: config.CalibrateOff, Flag: "--calibrate"},
	}})
	require.NoError(t, err)
	_, err = TestSettings(c)
	require.ErrorIs(t, err, config.ErrConfig)
	assert.Contains(t, err.Error(), "Interactive has no target_qps of yours")
	assert.Contains(t, exitcode.Hint(err), "llama3_1-8b-interactive.Server.target_qps = N")
}

// TestUserConfInteractiveScenario: a user.conf line naming the scenario
// Interactive, which LoadGen never reads, says which line it reads.
func TestUserConfInteractiveScenario(t *testing.T) {
	t.Parallel()
	user := filepath.Join(t.TempDir(), "user.conf")
	require.NoError(t, os.WriteFile(user, []byte("llama3_1-8b.Interactive.target_qps = 7\n*.Interactive.min_duration = 0\n"), 0o644))
	_, err := ReadConf(config.LayerUserConf, user, "llama3_1-8b-interactive", "Server")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "an Interactive run reads llama3_1-8b-interactive.Server.target_qps")
	assert.Contains(t, err.Error(), "an Interactive run reads MODEL-interactive.Server.min_duration")
}
