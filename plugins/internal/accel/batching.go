package accel

import (
	"time"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// ServerBatchTimeout is the batching deadline in a Server run whose
// latency bound is unknown: NVIDIA's harness waits 3 ms for ResNet-50's
// 15 ms bound.
const ServerBatchTimeout = 3 * time.Millisecond

// serverBoundShare is the part of the Server latency bound a sample may
// wait for a fuller batch: a fifth, NVIDIA's 3 ms of ResNet-50's 15 ms.
const serverBoundShare = 5

// BatchTimeout returns how long the SDK's batcher lets the oldest issued
// sample wait for a fuller batch in run (sdk.Info.BatchTimeout): set when
// the user chose it (set >= 0, e.g. "--set tensorrt.Server.batch_timeout=2ms"),
// else, in the Server scenario, a fifth of its latency bound
// ([ServerBatchTimeout] when the host did not say), and 0 (no batching
// across queries) in the other scenarios: there a query is a batch of its
// own, and waiting would only add to its latency.
func BatchTimeout(set time.Duration, run sdk.Run) time.Duration {
	switch {
	case set >= 0:
		return set
	case run.Scenario != sdk.ScenarioServer:
		return 0
	case run.Settings.TargetLatency > 0:
		return run.Settings.TargetLatency / serverBoundShare
	}
	return ServerBatchTimeout
}
