package calibrate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TokenLatency is one token latency of a Server probe with token
// latencies (the time to first token, or the time per output token)
// against its bound.
type TokenLatency struct {
	// Name is what the messages call it: "TTFT" or "TPOT".
	Name  string
	Bound time.Duration
	// Percentile is the latency at the bound's percentile. EarlyStopping
	// is LoadGen's early stopping estimate of that percentile over the
	// probe's queries, which needs EarlyStoppingQueries of them.
	Percentile, EarlyStopping time.Duration
	EarlyStoppingQueries      uint64
}

// miss is one bound a Server probe missed: what was measured (e.g.
// "TTFT p99 (early stopping)"), at what latency.
type miss struct {
	what           string
	latency, bound time.Duration
}

func (m miss) String() string {
	return fmt.Sprintf("%s %v > %v bound", m.what, round(m.latency), round(m.bound))
}

// misses are the bounds a Server probe missed; none when it met them
// all.
//
// Without token latencies that is LoadGen's own verdict on the sample
// latency at the bound's percentile. With them (the bounds an LLM run is
// judged by), each of TTFT and TPOT is judged at its early stopping
// estimate over the probe's queries, the latency the run's early
// stopping holds it to, or at the plain percentile where the probe
// issued too few queries for an estimate (see [Measurement.plainNote]);
// and the sample latency where the scenario bounds it (a target_latency
// above 0).
func (m Measurement) misses() []miss {
	pct := percentileName(m.LatencyPercentile)
	if len(m.Tokens) == 0 {
		if m.LatencyMet {
			return nil
		}
		return []miss{{what: "latency " + pct, latency: m.PercentileLatency, bound: m.LatencyBound}}
	}
	var ms []miss
	for _, tl := range m.Tokens {
		what, lat := tl.Name+" "+pct+" (early stopping)", tl.EarlyStopping
		if m.Queries < tl.EarlyStoppingQueries {
			what = fmt.Sprintf("%s %s (plain: %d queries, early stopping needs %d)", tl.Name, pct, m.Queries, tl.EarlyStoppingQueries)
			lat = tl.Percentile
		}
		if lat > tl.Bound {
			ms = append(ms, miss{what: what, latency: lat, bound: tl.Bound})
		}
	}
	if m.LatencyBound > 0 && m.PercentileLatency > m.LatencyBound {
		ms = append(ms, miss{what: "latency " + pct, latency: m.PercentileLatency, bound: m.LatencyBound})
	}
	return ms
}

// plainNote says, for a probe with token latencies that issued too few
// queries for early stopping estimates, that its token latencies were
// judged at the plain percentile; "" otherwise.
func (m Measurement) plainNote() string {
	for _, tl := range m.Tokens {
		if m.Queries < tl.EarlyStoppingQueries {
			return fmt.Sprintf("TTFT and TPOT at %s queries/s judged at the plain %s: %d queries, early stopping needs %d",
				formatRate(m.TargetQPS), percentileName(m.LatencyPercentile), m.Queries, tl.EarlyStoppingQueries)
		}
	}
	return ""
}

// joinMisses writes the bounds missed, e.g. "TTFT p99 (early stopping)
// 2.3ms > 2ms bound and TPOT p99 (early stopping) 120ms > 100ms bound".
func joinMisses(ms []miss) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, " and ")
}

// percentileName writes a fraction as a percentile, e.g. "p99" or
// "p99.9".
func percentileName(p float64) string {
	return "p" + strconv.FormatFloat(math.Round(p*1e4)/1e2, 'f', -1, 64)
}
