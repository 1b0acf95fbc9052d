package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCalibrateKeys(t *testing.T) {
	t.Parallel()
	c, err := Load(Inputs{})
	require.NoError(t, err)
	assert.Equal(t, CalibrateConfig{Mode: CalibrateAuto, ProbeTime: time.Second, Margin: 3, ServerSteps: 6, MaxSamples: 1 << 26}, c.Calibrate)

	c, err = Load(Inputs{Environ: []string{"MLPERF_HOST_CALIBRATE__MARGIN=3.5"}, Flags: []FlagValue{
		{Key: KeyCalibrateMode, Value: CalibrateOff, Flag: "--calibrate"},
		{Key: KeyCalibrateProbeTime, Value: "250ms", Flag: "--set calibrate.probe_time=250ms"},
		{Key: KeyCalibrateServerSteps, Value: "10", Flag: "--set calibrate.server_steps=10"},
		{Key: KeyCalibrateMaxSamples, Value: "4096", Flag: "--set calibrate.max_samples=4096"},
	}})
	require.NoError(t, err)
	assert.Equal(t, CalibrateConfig{Mode: CalibrateOff, ProbeTime: 250 * time.Millisecond, Margin: 3.5, ServerSteps: 10, MaxSamples: 4096}, c.Calibrate)

	for _, tc := range []struct {
		name, key, value, allowed string
	}{
		{name: "mode", key: KeyCalibrateMode, value: "on", allowed: "one of auto, off"},
		{name: "probe too short", key: KeyCalibrateProbeTime, value: "1ms", allowed: "a Go duration from 10ms to 10m"},
		{name: "probe not a duration", key: KeyCalibrateProbeTime, value: "1", allowed: "a Go duration from 10ms to 10m"},
		// A margin below one would choose values a system as fast as
		// the probe's already misses.
		{name: "margin below one", key: KeyCalibrateMargin, value: "0.5", allowed: "a number from 1 to 100"},
		{name: "margin NaN", key: KeyCalibrateMargin, value: "NaN", allowed: "a number from 1 to 100"},
		{name: "no steps", key: KeyCalibrateServerSteps, value: "0", allowed: "an integer from 1 to 30"},
		// LoadGen refuses a schedule of more.
		{name: "max samples above LoadGen's", key: KeyCalibrateMaxSamples, value: "1073741825", allowed: "an integer from 1024 to 1073741824"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(Inputs{Flags: []FlagValue{{Key: tc.key, Value: tc.value, Flag: "--set"}}})
			require.ErrorIs(t, err, ErrConfig)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.key, e.Key)
			assert.Equal(t, tc.allowed, e.Allowed)
		})
	}
}
