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
	// MinDuration, SamplesPerQuery and MaxSamples bound a chosen value:
	// the schedule LoadGen generates from it for the run's min_duration
	// (queries of SamplesPerQuery samples) holds at most MaxSamples
	// samples; 0 for no bound. LoadGen builds the whole schedule before
	// the run, tens of bytes a sample, so a very fast system with a long
	// min_duration would otherwise get one of gigabytes.
	MinDuration     time.Duration
	SamplesPerQuery uint64
	MaxSamples      uint64
}

// capQPS bounds an Offline target_qps: LoadGen issues target_qps ×
// min_duration × 1.1 samples.
func (s Settings) capQPS(qps float64) (float64, bool) {
	if s.MaxSamples == 0 || s.MinDuration <= 0 {
		return qps, false
	}
	most := float64(s.MaxSamples) / (1.1 * s.MinDuration.Seconds())
	return min(qps, most), qps > most
}

// capMillis bounds a SingleStream or MultiStream target_latency: LoadGen
// generates queries for twice min_duration at that latency.
func (s Settings) capMillis(ms float64) (float64, bool) {
	if s.MaxSamples == 0 || s.MinDuration <= 0 {
		return ms, false
	}
	least := 2 * float64(s.MinDuration) / float64(time.Millisecond) * float64(max(s.SamplesPerQuery, 1)) / float64(s.MaxSamples)
	return max(ms, least), ms < least
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
		c, err = Offline(m, s)
	case "SingleStream", "MultiStream":
		c, err = Latency(scenario, m, s)
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
