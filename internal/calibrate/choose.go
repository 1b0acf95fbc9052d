package calibrate

import (
	"context"
	"fmt"
	"time"
)

// Settings are how a calibration probes and chooses: the calibrate.*
// keys.
type Settings struct {
	// ProbeTime is about how long one probe runs.
	ProbeTime time.Duration
	// Margin is the safety factor between what was measured and what is
	// chosen (see Offline, Latency and Server).
	Margin float64
	// ServerSteps is how many bisection steps the Server peak search
	// makes below the capacity.
	ServerSteps int
}

// Choose probes the system in scenario (an MLPerf scenario's name) and
// chooses its expected value.
//
// # Errors
//
// An unknown scenario, or a probe that failed or measured nothing.
func Choose(ctx context.Context, scenario string, p Prober, s Settings) (Choice, error) {
	m, err := Measure(ctx, p, s.ProbeTime)
	if err != nil {
		return Choice{}, fmt.Errorf("calibrate %s: %w", scenario, err)
	}
	var c Choice
	switch scenario {
	case "Offline":
		c, err = Offline(m, s.Margin)
	case "SingleStream", "MultiStream":
		c, err = Latency(scenario, m, s.Margin)
	case "Server":
		var pk Peak
		if pk, err = SearchPeak(ctx, p, m.Throughput(), s.ServerSteps, s.ProbeTime); err == nil {
			c = Server(pk, s.Margin)
		}
	default:
		err = fmt.Errorf("unknown scenario")
	}
	if err != nil {
		return Choice{}, fmt.Errorf("calibrate %s: %w", scenario, err)
	}
	return c, nil
}
