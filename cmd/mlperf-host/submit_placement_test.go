package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
