package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// result is a run's result metric as the page shows it.
type result struct {
	// key is the detail log key it reads.
	key string
	// value is in ns for a latency, per second for a rate.
	value   float64
	unit    string
	latency bool
	// from names the scenario of the run an inferred result stands on.
	from string
}

// text formats the result: "101,527 tokens/s", "3.68 s".
func (m result) text() string {
	if m.latency {
		return duration(m.value)
	}
	return rate(m.value) + " " + m.unit
}

// label names the result for a reader.
func (m result) label() string {
	l := metricLabel(m.key)
	switch {
	case m.from == "":
		return l
	case !m.latency:
		l = "Samples per second"
	default:
		l = "Early-stopping estimate of the 99th percentile latency of 8 samples"
	}
	return l + ", inferred from the " + m.from + " run"
}

// result is the run's result metric as the round's submission checker
// reports it ([benchmarks.Round.ResultOf]): tokens per second for LLMs
// and whisper, the early-stopping estimate for SingleStream and
// MultiStream; where the log lacks that key, the metric of its own
// scenario (throughput, or the latency percentile it targets).
func (r *Run) result() (result, bool) {
	if r.Detail == nil || !r.HasPerformance() {
		return result{}, false
	}
	if r.Round != nil {
		var b benchmarks.Benchmark
		if r.Bench != nil {
			b = *r.Bench
		}
		run, dir := benchmarks.Scenario(r.effective()), benchmarks.Scenario(r.Scenario())
		if m, err := r.Round.ResultOf(b, run, dir, r.num); err == nil {
			out := result{key: m.Key, value: m.Value, unit: m.Unit, latency: m.Latency}
			switch m.Unit {
			case "ms":
				out.value *= 1e6
			case "s":
				out.value *= 1e9
			}
			if m.Inferred {
				out.from = string(run)
			}
			return out, true
		}
	}
	m, err := r.Detail.Metric()
	if err != nil {
		return result{}, false
	}
	return result{key: m.Key, value: m.Value, unit: m.Unit, latency: !m.HigherIsBetter}, true
}

// tokenLimits are the TTFT and TPOT bounds of the run's scenario
// (Interactive's for an Interactive directory), if its benchmark has
// them.
func (r *Run) tokenLimits() (benchmarks.TokenLimits, bool) {
	if r.Bench == nil {
		return benchmarks.TokenLimits{}, false
	}
	l, ok := r.Bench.TokenLatency[benchmarks.Scenario(r.Scenario())]
	return l, ok
}

// score is one quality metric read from accuracy.txt.
type score struct {
	Metric, Value, Target string
	// Verdict says whether it meets its target and limit; Class is
	// "meets", "below" or "above".
	Verdict, Class string
}

// scores reads accuracy.txt as the round's checker does: each quality
// target's metric with the checker's pattern (ROUGE1, acc, ...) and the
// metrics it bounds from above. Without a benchmark the round knows, none.
func (r *Run) scores() []score {
	if r.Accuracy == "" || r.Round == nil || r.Bench == nil {
		return nil
	}
	lines := strings.Split(r.Accuracy, "\n")
	find := func(metric benchmarks.Metric) (string, float64, bool) {
		p, ok := r.Round.AccuracyPatterns[metric]
		if !ok {
			return "", 0, false
		}
		re, err := regexp.Compile(`^(?:` + p + `)`)
		if err != nil {
			return "", 0, false
		}
		for _, l := range lines {
			if m := re.FindStringSubmatch(strings.TrimRight(l, "\r")); m != nil {
				v, err := strconv.ParseFloat(m[1], 64)
				return m[1], v, err == nil
			}
		}
		return "", 0, false
	}
	var out []score
	for _, t := range r.Bench.TargetsFor(benchmarks.Scenario(r.Scenario())) {
		text, v, ok := find(t.Metric)
		if !ok {
			continue
		}
		s := score{Metric: string(t.Metric), Value: text, Target: fmt.Sprintf("≥ %s (%g%% of %g)", trimZeros(strconv.FormatFloat(t.Target(), 'f', 4, 64)), t.Fraction*100, t.Reference)}
		switch {
		case r.Where.Division == "open": // the open division is held to no target
			s.Target = "closed division's: " + s.Target
		case v >= t.Target():
			s.Verdict, s.Class = "meets its target", "meets"
		default:
			s.Verdict, s.Class = "below its target", "below"
		}
		out = append(out, s)
	}
	for _, u := range r.Bench.Upper {
		for i := range out {
			if out[i].Metric != string(u.Metric) {
				continue
			}
			_, v, _ := find(u.Metric)
			out[i].Target += ", ≤ " + trimZeros(strconv.FormatFloat(u.Limit, 'f', 4, 64))
			if v > u.Limit && r.Where.Division != "open" {
				out[i].Verdict, out[i].Class = "above its upper limit", "above"
			}
		}
	}
	return out
}

// accuracyText is the score to show where the page names it: the
// checker's metrics ("ROUGE1 44.7347 · ROUGE2 22.3552"), else the first
// line of accuracy.txt that is not its hash.
func (r *Run) accuracyText() string {
	if s := r.scores(); len(s) > 0 {
		var parts []string
		for _, x := range s {
			parts = append(parts, x.Metric+" "+x.Value)
		}
		return strings.Join(parts, " · ")
	}
	for _, l := range strings.Split(r.Accuracy, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "hash=") {
			return shorten(l, 80)
		}
	}
	return ""
}
