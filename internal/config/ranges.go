package config

import (
	"math"
	"strconv"
)

// settingRange is the documented range of a numeric LoadGen setting, in
// the units mlperf.conf writes it in. The official LoadGen takes any number
// and fails later (a target_qps of 0 ends INVALID) or allocates without
// bound (a target_qps of 1e308 asks for a schedule of 1e308 samples):
// mlperf-host refuses such values before anything runs.
type settingRange struct {
	lo, hi float64
	// loOpen and hiOpen exclude the bound itself (a rate must be positive,
	// a percentile below 100).
	loOpen, hiOpen bool
	unit           string
}

// Bounds shared by several settings.
const (
	week        = 7 * 24 * 3600 * 1000 // ms: the longest duration a run may ask for
	day         = 24 * 3600 * 1000     // ms: the longest latency
	maxQPS      = 1e9                  // a billion samples a second
	maxCount    = 1 << 40              // queries or samples
	maxPerQuery = 1 << 20
)

// settingRanges are the ranges of the numeric settings; seeds, flags and
// limits that only stop a run early (max_query_count, max_async_queries)
// take any value of their kind.
var settingRanges = map[string]settingRange{
	"target_qps":                          {lo: 1e-3, hi: maxQPS, unit: "samples/s"}, // a query every 1000 s at least
	"target_latency":                      {lo: 0, hi: day, unit: "ms"},
	"target_latency_percentile":           {lo: 0, hi: 100, hiOpen: true, unit: "%"},
	"target_duration":                     {lo: 0, hi: week, unit: "ms"},
	"min_duration":                        {lo: 0, hi: week, unit: "ms"},
	"max_duration":                        {lo: 0, hi: week, unit: "ms"},
	"min_query_count":                     {lo: 0, hi: maxCount},
	"samples_per_query":                   {lo: 1, hi: maxPerQuery},
	"performance_sample_count_override":   {lo: 0, hi: maxCount},
	"accuracy_sample_count_override":      {lo: 0, hi: maxCount},
	"accuracy_log_probability":            {lo: 0, hi: 100, unit: "%"},
	"accuracy_log_sampling_target":        {lo: 0, hi: maxCount},
	"ttft_latency":                        {lo: 0, hi: day, unit: "ms"},
	"tpot_latency":                        {lo: 0, hi: day, unit: "ms"},
	"token_latency_scaling_factor":        {lo: 0, hi: 1 << 20},
	"num_issue_query_threads":             {lo: 0, hi: 1024},
	"find_peak_qps_decimals_of_precision": {lo: 0, hi: 15},
	"find_peak_qps_boundary_step_size":    {lo: 0, loOpen: true, hi: 1e6},
}

// allowed describes the range for errors, as an interval: "a number in
// (0, 1e+09] samples/s".
func (r settingRange) allowed() string {
	lo, hi := "[", "]"
	if r.loOpen {
		lo = "("
	}
	if r.hiOpen {
		hi = ")"
	}
	s := "a number in " + lo + num(r.lo) + ", " + num(r.hi) + hi
	if r.unit != "" {
		s += " " + r.unit
	}
	return s
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// checkRange checks a parsed value against the setting's range, if any.
func checkRange(name string, v float64) (string, error) {
	r, ok := settingRanges[name]
	if !ok {
		return "", nil
	}
	if math.IsNaN(v) || v < r.lo || v > r.hi || r.loOpen && v == r.lo || r.hiOpen && v == r.hi {
		return r.allowed(), errBad
	}
	return "", nil
}
