package accel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mlperf-host/mlperf-host/sdk"
)

func TestBatchTimeout(t *testing.T) {
	t.Parallel()
	server := func(bound time.Duration) sdk.Run {
		return sdk.Run{Scenario: sdk.ScenarioServer, Settings: sdk.TestSettings{TargetLatency: bound}}
	}
	tests := []struct {
		name string
		set  time.Duration
		run  sdk.Run
		want time.Duration
	}{
		{name: "ResNet-50 Server: NVIDIA's 3 ms", set: -1, run: server(15 * time.Millisecond), want: 3 * time.Millisecond},
		{name: "BERT Server", set: -1, run: server(130 * time.Millisecond), want: 26 * time.Millisecond},
		{name: "Server without a bound", set: -1, run: server(0), want: ServerBatchTimeout},
		{name: "Offline: a query is its own batch", set: -1, run: sdk.Run{Scenario: sdk.ScenarioOffline}},
		{name: "SingleStream", set: -1, run: sdk.Run{Scenario: sdk.ScenarioSingleStream}},
		{name: "an older host that did not say", set: -1},
		{name: "the user's, in Server", set: 500 * time.Microsecond, run: server(15 * time.Millisecond), want: 500 * time.Microsecond},
		{name: "the user's 0 turns batching off", set: 0, run: server(15 * time.Millisecond)},
		{name: "the user's, elsewhere too", set: time.Millisecond, run: sdk.Run{Scenario: sdk.ScenarioOffline}, want: time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, BatchTimeout(tt.set, tt.run))
		})
	}
}
