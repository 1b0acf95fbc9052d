package echo_test

import (
	"testing"

	"github.com/mlperf-host/mlperf-host/examples/echo"
	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  echo.Config
	}{
		{name: "defaults", cfg: echo.Config{}},
		// One sample per call, one call at a time: the dispatcher splits
		// and queues the most.
		{name: "batch 1", cfg: echo.Config{MaxBatch: 1, MaxInFlight: 1}},
		{name: "wide", cfg: echo.Config{MaxBatch: 7, MaxInFlight: 8, FirstTokens: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sdktest.Config{
				Check:    sdktest.Echo,
				BadModel: &sdk.Model{Bytes: echo.BadModel},
				New:      func() sdk.Backend { return echo.New(tt.cfg) },
			}.Run(t, echo.New(tt.cfg))
		})
	}
}
