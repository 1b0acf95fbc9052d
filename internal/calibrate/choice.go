package calibrate

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// The settings keys a calibration chooses (LoadGen's mlperf.conf names).
const (
	KeyTargetQPS     = "target_qps"
	KeyTargetLatency = "target_latency"
)

// Measurement is what one probe run measured.
type Measurement struct {
	// Samples completed and Queries issued over Duration, from the first
	// issue to the last response.
	Samples, Queries uint64
	Duration         time.Duration
	// QueryLatency is the mean latency of a query (of all its samples in
	// MultiStream).
	QueryLatency time.Duration
	// TargetQPS is the rate a Server probe was scheduled at, LatencyMet
	// whether it met the latency bound at the scenario's percentile (as
	// LoadGen judged it), and PercentileLatency the sample latency at
	// that percentile.
	TargetQPS         float64
	LatencyMet        bool
	PercentileLatency time.Duration
	// LatencyBound is the Server target_latency (0 where the scenario
	// bounds only token latencies) and LatencyPercentile the percentile
	// the bounds apply to (0.99 for the 99th).
	LatencyBound      time.Duration
	LatencyPercentile float64
	// Tokens are, in a Server run with token latencies, its TTFT and
	// TPOT against their bounds; nil otherwise.
	Tokens []TokenLatency
}

// Throughput is the measurement's samples per second; 0 for an empty one.
func (m Measurement) Throughput() float64 {
	if m.Duration <= 0 {
		return 0
	}
	return float64(m.Samples) / m.Duration.Seconds()
}

// Choice is a value a calibration chose for one setting, and what it was
// measured from.
type Choice struct {
	Scenario string
	// Key is the setting (KeyTargetQPS or KeyTargetLatency), Value its
	// value as mlperf.conf writes it (a rate, or milliseconds).
	Key, Value string
	// Probe describes the measurement, e.g. "probe: 5212 samples/s over
	// 1.02s".
	Probe string
}

// String reads "Offline target_qps = 10424 (probe: 5212 samples/s over
// 1.02s)".
func (c Choice) String() string {
	return fmt.Sprintf("%s %s = %s (%s)", c.Scenario, c.Key, c.Value, c.Probe)
}

// Offline chooses the Offline target_qps: s.Margin times the measured
// throughput, so that a machine up to that many times faster than during
// the probe still runs past min_duration (LoadGen issues target_qps ×
// min_duration × 1.1 samples); a slower one runs longer. A value whose
// schedule would exceed s.MaxSamples is lowered to fit, and the probe
// text says so.
//
// # Errors
//
// When the probe completed no samples.
func Offline(m Measurement, s Settings) (Choice, error) {
	r := m.Throughput()
	if r <= 0 {
		return Choice{}, fmt.Errorf("the Offline probe completed no samples")
	}
	qps, capped := s.capQPS(r * s.Margin)
	return Choice{Scenario: "Offline", Key: KeyTargetQPS, Value: formatRate(qps),
		Probe: fmt.Sprintf("probe: %s samples/s over %v", formatRate(r), round(m.Duration)) + cappedText(capped, s)}, nil
}

// Latency chooses the SingleStream or MultiStream target_latency: the
// measured mean query latency divided by s.Margin. LoadGen generates
// queries for twice min_duration at the expected latency, so a machine up
// to 2 × margin times faster than during the probe still has queries
// left at min_duration; a lower value costs only memory, up to
// s.MaxSamples (the value is raised to fit, and the probe text says so).
//
// # Errors
//
// When the probe measured no latency.
func Latency(scenario string, m Measurement, s Settings) (Choice, error) {
	if m.QueryLatency <= 0 {
		return Choice{}, fmt.Errorf("the %s probe measured no latency", scenario)
	}
	ms, capped := s.capMillis(float64(m.QueryLatency) / float64(time.Millisecond) / s.Margin)
	return Choice{Scenario: scenario, Key: KeyTargetLatency, Value: formatMillis(ms),
		Probe: fmt.Sprintf("probe: mean query latency %v over %d queries", round(m.QueryLatency), m.Queries) + cappedText(capped, s)}, nil
}

// cappedText is what the probe text adds when the value was bounded by
// the schedule's size.
func cappedText(capped bool, s Settings) string {
	if !capped {
		return ""
	}
	return fmt.Sprintf("; bounded so that the schedule of min_duration %v holds at most %d samples (calibrate.max_samples)", s.MinDuration, s.MaxSamples)
}

// Server chooses the Server target_qps: the peak the search found,
// divided by margin, so that a machine margin times slower than during
// the search still meets the latency bounds. The probe text says what
// bounded the peak, and when the peak's token latencies were judged at
// the plain percentile.
func Server(p Peak, margin float64) Choice {
	probe := fmt.Sprintf("probe: peak %s queries/s under the latency bounds, %d probes from a capacity of %s samples/s",
		formatRate(p.QPS), len(p.Trials), formatRate(p.Capacity))
	if p.Bounded != "" {
		probe += "; bounded by " + p.Bounded
	}
	if p.Note != "" {
		probe += "; " + p.Note
	}
	return Choice{Scenario: "Server", Key: KeyTargetQPS, Value: formatRate(p.QPS / margin), Probe: probe}
}

// formatRate writes a rate with four significant digits, at least 1.
func formatRate(r float64) string {
	return strconv.FormatFloat(significant(max(r, 1), 4), 'f', -1, 64)
}

// formatMillis writes milliseconds with three significant digits, at
// least a microsecond.
func formatMillis(ms float64) string {
	return strconv.FormatFloat(significant(max(ms, 0.001), 3), 'f', -1, 64)
}

// significant rounds x to n significant digits.
func significant(x float64, n int) float64 {
	if x == 0 {
		return 0
	}
	scale := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*scale) / scale
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(10 * time.Nanosecond)
}
