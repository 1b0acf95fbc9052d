package benchmarks

import (
	"fmt"
	"slices"
	"strconv"
)

// The audit.config keys LoadGen does not read: TEST07's and TEST09's
// run_verification.py take their thresholds from them.
const (
	KeyTEST07Threshold = "test07_accuracy_threshold"
	KeyTEST09MinTokens = "test09_min_output_tokens"
	KeyTEST09MaxTokens = "test09_max_output_tokens"
)

// AuditValue returns the value test t's official audit.config gives key
// for every model and scenario ("*.*.KEY"), read as the verification
// scripts read it (Python's float).
//
// # Errors
//
// The round publishes no audit.config of t for b, the file has no such
// line, or its value is not a number.
func (b Benchmark) AuditValue(t Test, key string) (float64, error) {
	lines, ok := b.AuditConfigs[t]
	if !ok {
		return 0, fmt.Errorf("round %s publishes no %s audit.config for %s", b.Round, t, b.SubmissionName)
	}
	v, ok := lines["*.*."+key]
	if !ok {
		return 0, fmt.Errorf("the %s audit.config of %s has no *.*.%s line", t, b.SubmissionName, key)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("the %s audit.config of %s: *.*.%s = %q: not a number", t, b.SubmissionName, key, v)
	}
	return f, nil
}

// OneOf returns the scenarios of which category c's rules ask at least
// one: Server and Interactive where both are optional (the checker's
// "one of Interactive or Server"); nil elsewhere.
func (b Benchmark) OneOf(c Category) []Scenario {
	opt := b.Optional[c]
	if slices.Contains(opt, Server) && slices.Contains(opt, Interactive) {
		return []Scenario{Server, Interactive}
	}
	return nil
}

// SubmitScenarios returns the scenarios a submission of category c makes
// unless told otherwise: the required ones, then every scenario of
// [Benchmark.OneOf]; false when b is not part of c.
func (b Benchmark) SubmitScenarios(c Category) ([]Scenario, bool) {
	req, ok := b.Requires(c)
	if !ok {
		return nil, false
	}
	for _, sc := range b.OneOf(c) {
		if !slices.Contains(req, sc) {
			req = append(req, sc)
		}
	}
	return req, true
}
