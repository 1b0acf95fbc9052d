package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

func TestCheckPlacement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		division string
		opts     map[string]string
		ack      string
		wantErr  []string
		readme   string
	}{
		{name: "defaults", division: "closed"},
		{name: "turned off", division: "closed", opts: map[string]string{"start_from_device": "false", "end_on_device": "0"}},
		{name: "open division", division: "open", opts: map[string]string{"start_from_device": "true"},
			readme: "start_from_device=true"},
		{name: "closed, not acknowledged", division: "closed",
			opts:    map[string]string{"start_from_device": "auto", "end_on_device": "true"},
			wantErr: []string{"start_from_device and end_on_device", "plugin tensorrt"}},
		{name: "closed, one acknowledged", division: "closed",
			opts: map[string]string{"start_from_device": "true", "end_on_device": "true"}, ack: "start_from_device",
			wantErr: []string{"allows end_on_device only", "--acknowledge end_on_device"}},
		{name: "closed, acknowledged", division: "closed",
			opts: map[string]string{"start_from_device": "true", "end_on_device": "true"},
			ack:  " end_on_device, start_from_device", readme: "start_from_device=true, end_on_device=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := placementAllowed(tt.division, "tensorrt", tt.opts, tt.ack)
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.Equal(t, exitcode.Config, exitcode.Of(err))
				for _, w := range tt.wantErr {
					assert.Contains(t, err.Error()+exitcode.Hint(err), w)
				}
				return
			}
			require.NoError(t, err)
			if tt.readme == "" {
				assert.Empty(t, placementText(tt.opts))
			} else {
				assert.Contains(t, placementText(tt.opts), tt.readme)
			}
		})
	}
}

// TestScenarioPlacement: a scenario's own approval option is refused in
// the closed division like a plain one, and what each scenario turns on
// goes into the system description's sw_notes after what is there.
func TestScenarioPlacement(t *testing.T) {
	t.Parallel()
	load := func(t *testing.T, scenario string) *config.Config {
		t.Helper()
		c, err := config.Load(config.Inputs{Flags: []config.FlagValue{
			{Key: config.KeyDivision, Value: "closed", Flag: "--set"}, {Key: config.KeyPlugin, Value: "tensorrt", Flag: "--plugin"},
			{Key: config.KeyScenario, Value: scenario, Flag: "--scenario"},
			{Key: config.PrefixOptions + "tensorrt.Server.start_from_device", Value: "true", Flag: "--set"},
		}})
		require.NoError(t, err)
		return c
	}
	configs := []*config.Config{load(t, "Offline"), load(t, "Server")}

	_, err := scenarioPlacement(configs, "")
	require.Error(t, err, "Server's own start_from_device")
	assert.Equal(t, exitcode.Config, exitcode.Of(err))
	assert.Contains(t, err.Error(), "scenario Server")
	assert.Contains(t, exitcode.Hint(err), "--acknowledge start_from_device")

	notes, err := scenarioPlacement(configs, "start_from_device")
	require.NoError(t, err)
	assert.Equal(t, []string{"start_from_device=true (Server)"}, notes)

	desc := map[string]any{"sw_notes": "driver 580"}
	withPlacementNotes(desc, notes)
	assert.Equal(t, "driver 580; data placement needing the MLPerf committee's approval: start_from_device=true (Server)",
		desc["sw_notes"])
	empty := map[string]any{"sw_notes": ""}
	withPlacementNotes(empty, nil)
	assert.Empty(t, empty["sw_notes"], "nothing to say")
	withPlacementNotes(empty, notes)
	assert.Equal(t, "data placement needing the MLPerf committee's approval: start_from_device=true (Server)", empty["sw_notes"])
}
