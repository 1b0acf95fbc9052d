package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/calibrate"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/runner"
)

// TestUserConfCalibrated checks the user.conf submit writes for a
// scenario whose expected value was calibrated, and that a run with it
// uses that value as the user's, without calibrating again.
func TestUserConfCalibrated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, scenario string
		ch             calibrate.Choice
	}{
		{name: "SingleStream", scenario: "SingleStream", ch: calibrate.Choice{Scenario: "SingleStream", Key: calibrate.KeyTargetLatency, Value: "0.285",
			Probe: "probe: mean query latency 569.37µs over 2338 queries"}},
		{name: "Offline", scenario: "Offline", ch: calibrate.Choice{Scenario: "Offline", Key: calibrate.KeyTargetQPS, Value: "3646",
			Probe: "probe: 1823 samples/s over 1.26s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			load := func(extra ...config.FlagValue) *config.Config {
				c, err := config.Load(config.Inputs{ReadConf: runner.ReadConf, Flags: append([]config.FlagValue{
					{Key: config.KeyRound, Value: "v6.1", Flag: "--round"}, {Key: config.KeyScenario, Value: tc.scenario, Flag: "--scenario"}}, extra...)})
				require.NoError(t, err)
				return c
			}
			conf := userConf(runner.Calibrated(load(), tc.ch))
			golden(t, "user_conf_calibrated_"+tc.name, conf)

			path := filepath.Join(t.TempDir(), "user.conf")
			require.NoError(t, os.WriteFile(path, []byte(conf), 0o644))
			again := load(config.FlagValue{Key: config.KeyUserConf, Value: path, Flag: "--user-conf"})
			v, ok := again.Lookup(config.PrefixSettings + tc.ch.Key)
			require.True(t, ok)
			assert.Equal(t, tc.ch.Value, v.Value)
			assert.Equal(t, config.LayerUserConf, v.Source.Layer)
			s, err := runner.TestSettings(again)
			require.NoError(t, err)
			assert.False(t, runner.NeedsCalibration(again, s))
		})
	}
}
