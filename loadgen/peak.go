package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
)

const notSupportedMsg = "Finding peak performance is only supported in Server scenarios."

// qpsField is the official ToStringPerformanceField: std::to_string of the
// target QPS.
func qpsField(e *effective) string { return strconv.FormatFloat(e.targetQPS, 'f', 6, 64) }

// findPeakPerformance is the official FindPeakPerformanceMode: check that
// the requested QPS meets the latency bound, widen the QPS until it does
// not, then binary-search between the two to the requested precision.
func (r *run) findPeakPerformance(ctx context.Context, base *effective) (*PerformanceResult, error) {
	const file = "loadgen/peak.go"
	msg := func(s string) { r.logs.detail("generic_message", vString(s), levelInfo, file) }
	msg("Starting FindPeakPerformance mode")
	if base.scenario != Server {
		r.logs.detail("error_invalid_config", vString(notSupportedMsg), levelError, file)
		return nil, errors.New("find peak performance: only supported in the Server scenario")
	}
	msg("FindPeakPerformance: Check validity of the base settings field: " + qpsField(base))

	trial := func(e *effective, set loadableSet) *perfSummary {
		pr, sutErrors := r.issueQueries(ctx, e, PerformanceOnly, set)
		return newPerfSummary(r.sutName, e, pr, sutErrors)
	}
	withSet := func(e *effective, f func(set loadableSet) *perfSummary) (*perfSummary, error) {
		set, err := r.performanceSet(e)
		if err != nil {
			return nil, fmt.Errorf("find peak performance: %w", err)
		}
		if err := r.loadSamples(ctx, set.samples); err != nil {
			return nil, err
		}
		ps := f(set)
		return ps, r.unloadSamples(ctx, set.samples)
	}
	finish := func(ps *perfSummary, err error) (*PerformanceResult, error) {
		ps.writeSummary(r.logs)
		ps.writeDetail(r.logs)
		res := ps.result()
		res.PeakQPS = ps.s.targetQPS
		if err == nil && ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return res, err
	}

	lower, err := withSet(base, func(set loadableSet) *perfSummary { return trial(base, set) })
	if err != nil {
		return nil, err
	}
	if ok, rec := lower.perfConstraintsMet(); !ok {
		r.logs.detail("error_runtime", vString("FindPeakPerformance: Initial lower bound does not satisfy performance constraints, msg: "+rec), levelError, file)
		res, err := finish(lower, nil)
		res.PeakQPS = 0
		return res, err
	}

	// Widen: [q, q*(1+step)) until the upper end fails.
	var upper *perfSummary
	for ctx.Err() == nil {
		u := *lower.s
		u.targetQPS = lower.s.targetQPS * (1 + u.requested.ServerFindPeakQPSBoundaryStepSize)
		msg("FindBoundaries: Checking fields [" + qpsField(lower.s) + ", " + qpsField(&u) + ")")
		upper, err = withSet(&u, func(set loadableSet) *perfSummary { return trial(&u, set) })
		if err != nil {
			return nil, err
		}
		if ok, _ := upper.perfConstraintsMet(); !ok {
			break
		}
		lower = upper
	}
	if ctx.Err() != nil {
		return finish(lower, nil)
	}
	msg("FindPeakPerformance: Found boundaries: [" + qpsField(lower.s) + ", " + qpsField(upper.s) + ")")

	// Binary search, reusing the set of the upper bound.
	peak, err := withSet(upper.s, func(set loadableSet) *perfSummary {
		l, u := lower, upper
		for ctx.Err() == nil && !peakFinished(l.s, u.s) {
			m := *l.s
			m.targetQPS = l.s.targetQPS + (u.s.targetQPS-l.s.targetQPS)/2
			msg("FindPeakPerformanceBinarySearch: Testing the mid value of bounds [" + qpsField(l.s) + ", " + qpsField(u.s) + "): " + qpsField(&m))
			mid := trial(&m, set)
			if ok, _ := mid.perfConstraintsMet(); ok {
				l = mid
			} else {
				u = mid
			}
		}
		return l
	})
	if err != nil {
		return nil, err
	}
	msg("FindPeakPerformance: Found peak performance field: " + qpsField(peak.s))
	return finish(peak, nil)
}

// peakFinished is the official IsFinished: the bounds agree to the
// requested decimals.
func peakFinished(l, u *effective) bool {
	precision := float64(uint8(l.requested.ServerFindPeakQPSDecimalsOfPrecision))
	scale := math.Pow(10, precision)
	return math.Floor(l.targetQPS*scale)+1 >= math.Floor(u.targetQPS*scale)
}
