package calibrate

import (
	"context"
	"fmt"
	"time"
)

// Prober makes untimed probe runs of the system under test in the
// scenario being calibrated.
type Prober interface {
	// Count runs count queries as fast as the system answers them: in
	// Offline and Server one query of count samples (the Server search
	// starts from that throughput).
	Count(ctx context.Context, count uint64) (Measurement, error)
	// Rate runs the Server scenario at qps queries per second for about
	// d and says whether the latency bound was met.
	Rate(ctx context.Context, qps float64, d time.Duration) (Measurement, error)
}

// Probe bounds.
const (
	// FirstCount is the first probe's query count: small, so that a slow
	// system answers it quickly, and a warm-up for the next.
	FirstCount = 8
	// MaxCount bounds a probe's query count.
	MaxCount = 1 << 20
	// maxRounds bounds the probes Measure makes.
	maxRounds = 6
)

// Measure probes with Count until a probe lasts at least half of d (or
// reaches MaxCount), each probe sized from the last one's rate to last
// about d, and returns the last measurement: the first probes warm the
// system up. A system slower than FirstCount queries in d answers one
// probe of FirstCount queries.
//
// # Errors
//
// The prober's error, or ctx's.
func Measure(ctx context.Context, p Prober, d time.Duration) (Measurement, error) {
	n := uint64(FirstCount)
	var m Measurement
	for range maxRounds {
		var err error
		if m, err = p.Count(ctx, n); err != nil {
			return m, err
		}
		if err := ctx.Err(); err != nil {
			return m, err
		}
		if m.Duration >= d/2 || n >= MaxCount {
			return m, nil
		}
		n = NextCount(n, m.Duration, d)
	}
	return m, nil
}

// NextCount is the query count of the probe after one of n queries that
// took took: what lasts d at that rate, from twice to a hundred times n,
// at most MaxCount.
func NextCount(n uint64, took, d time.Duration) uint64 {
	next := 100 * n
	if took > 0 {
		next = uint64(float64(n) * float64(d) / float64(took) * 1.2)
	}
	return min(max(next, 2*n), 100*n, MaxCount)
}

// Peak is what a Server peak search found: the highest rate that met the
// latency bounds, the capacity the search started from, and every probe.
type Peak struct {
	QPS, Capacity float64
	Trials        []Measurement
	// Bounded says what bounded the peak: the bounds missed at the lowest
	// rate that missed any, e.g. "TTFT p99 (early stopping) 2.3ms > 2ms
	// bound at 367.2 queries/s"; "" when the capacity met them all.
	Bounded string
	// Note says when the probe at the peak issued too few queries for
	// early stopping estimates of its token latencies; "" otherwise.
	Note string
}

// SearchPeak looks for the highest Server rate, up to capacity (the
// throughput an Offline probe measured), that meets the latency bounds:
// it tries capacity, then bisects [0, capacity) steps times, each probe d
// long. A probe meets the bounds when it misses none (see
// [Measurement]): with token latencies, TTFT and TPOT at their early
// stopping estimates.
//
// # Errors
//
// When no rate tried met the bounds, the prober's error, or ctx's.
func SearchPeak(ctx context.Context, p Prober, capacity float64, steps int, d time.Duration) (Peak, error) {
	pk := Peak{Capacity: capacity}
	try := func(q float64) (bool, error) {
		m, err := p.Rate(ctx, q, d)
		if err != nil {
			return false, err
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		pk.Trials = append(pk.Trials, m)
		if ms := m.misses(); len(ms) > 0 {
			// Bisection tries each missing rate below the last.
			pk.Bounded = joinMisses(ms) + " at " + formatRate(q) + " queries/s"
			return false, nil
		}
		pk.Note = m.plainNote()
		return true, nil
	}
	if capacity <= 0 {
		return pk, fmt.Errorf("the Server peak search needs a capacity above 0, got %g", capacity)
	}
	if ok, err := try(capacity); err != nil {
		return pk, err
	} else if ok {
		pk.QPS = capacity
		return pk, nil
	}
	lo, hi := 0.0, capacity
	for range steps {
		mid := (lo + hi) / 2
		ok, err := try(mid)
		if err != nil {
			return pk, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return pk, fmt.Errorf("no Server rate down to %s queries/s met the latency bounds: %s", formatRate(hi), joinMisses(pk.Trials[len(pk.Trials)-1].misses()))
	}
	// The last rate that met the bounds is lo, and Note its probe's.
	pk.QPS = lo
	return pk, nil
}
