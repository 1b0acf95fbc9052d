package loadgen

import (
	"fmt"
	"math"
	"time"
)

// The largest schedule a pass may generate. The LoadGen builds every query
// of a pass before it issues the first (the schedule is data), about 40
// bytes a sample: settings that ask for more are refused before anything
// runs instead of allocating until the machine gives up. A billion samples
// is more than an hour of Offline at 250,000 samples/s; a year is longer
// than any run.
const (
	MaxScheduledSamples = 1 << 30
	MaxScheduleSpan     = 365 * 24 * time.Hour
)

// checkSchedule estimates the performance pass the settings generate (as
// generateQueries sizes it: the queries the duration needs at the target
// rate, or the minimum count, whichever is larger) and refuses one larger
// than MaxScheduledSamples or longer than MaxScheduleSpan. Accuracy passes
// are the size of the data set.
func (s TestSettings) checkSchedule() error {
	if !s.Scenario.valid() || s.Mode == AccuracyOnly {
		return nil
	}
	e, _ := newEffective(s, s.PerformanceSampleCountOverride, s.PerformanceSampleCountOverride)
	if e.performanceIssueUnique {
		return nil // one pass over the loaded samples
	}
	qps := e.targetQPS
	if !(qps > 0) || math.IsInf(qps, 0) {
		return nil // Validate reports these
	}
	perQuery := float64(max(e.samplesPerQuery, 1))
	duration := e.targetDuration.Seconds()
	if e.scenario != Server {
		duration *= 2 // generateQueries' margin
	}
	queries := max(float64(e.minQueryCount), duration*qps)
	span := queries / qps // seconds
	if e.scenario == Offline {
		queries, span = 1, 0 // one query, at once
	}
	samples := queries * perQuery
	if samples <= MaxScheduledSamples && span <= MaxScheduleSpan.Seconds() {
		return nil
	}
	return fmt.Errorf("%w: the settings ask for a schedule of %.4g samples spanning %s (target QPS %.4g, min_duration %v, "+
		"min_query_count %d, samples per query %d); the LoadGen generates at most %d samples over at most %v: "+
		"lower target_qps, min_duration or min_query_count",
		ErrInvalidSettings, samples, spanString(span), qps, s.MinDuration, s.MinQueryCount, max(e.samplesPerQuery, 1),
		MaxScheduledSamples, MaxScheduleSpan)
}

// spanString prints a span of seconds, in hours when it is long.
func spanString(seconds float64) string {
	if seconds >= MaxScheduleSpan.Seconds() {
		return fmt.Sprintf("%.4g hours", seconds/3600)
	}
	return time.Duration(seconds * 1e9).Round(time.Second).String()
}
