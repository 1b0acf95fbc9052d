package submission

import (
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Layout names the paths of one benchmark and scenario in a submission
// tree rooted at Root.
type Layout struct {
	Root, Division, Submitter, System string
	Benchmark                         benchmarks.Benchmark
	Scenario                          benchmarks.Scenario
}

func (l Layout) org() string { return filepath.Join(l.Root, l.Division, l.Submitter) }

func (l Layout) tail() []string {
	return []string{l.System, l.Benchmark.SubmissionName, string(l.Scenario)}
}

func (l Layout) under(top string, more ...string) string {
	return filepath.Join(append(append([]string{l.org(), top}, l.tail()...), more...)...)
}

// SystemFile is systems/SYSTEM.json.
func (l Layout) SystemFile() string { return filepath.Join(l.org(), "systems", l.System+".json") }

// CodeDir is code/BENCHMARK.
func (l Layout) CodeDir() string { return filepath.Join(l.org(), "code", l.Benchmark.SubmissionName) }

// MeasurementsDir is measurements/SYSTEM/BENCHMARK/SCENARIO.
func (l Layout) MeasurementsDir() string { return l.under("measurements") }

// PerformanceDir is results/.../performance/run_1.
func (l Layout) PerformanceDir() string { return l.under("results", "performance", "run_1") }

// AccuracyDir is results/.../accuracy.
func (l Layout) AccuracyDir() string { return l.under("results", "accuracy") }

// ComplianceDir is compliance/.../TEST0N.
func (l Layout) ComplianceDir(t benchmarks.Test) string { return l.under("compliance", string(t)) }

// CompliancePerformanceDir is compliance/.../TEST0N/performance/run_1.
func (l Layout) CompliancePerformanceDir(t benchmarks.Test) string {
	return filepath.Join(l.ComplianceDir(t), "performance", "run_1")
}

// ComplianceAccuracyDir is compliance/.../TEST01/accuracy.
func (l Layout) ComplianceAccuracyDir(t benchmarks.Test) string {
	return filepath.Join(l.ComplianceDir(t), "accuracy")
}

// File names of the logs.
const (
	SummaryFile  = "mlperf_log_summary.txt"
	DetailFile   = "mlperf_log_detail.txt"
	AccuracyFile = "mlperf_log_accuracy.json"
	AccuracyText = "accuracy.txt"
	VerifyAcc    = "verify_accuracy.txt"
	VerifyPerf   = "verify_performance.txt"
)

// AuditSettings returns the LoadGen settings (mlperf.conf keys) a
// compliance test's audit.config sets.
func AuditSettings(t benchmarks.Test) map[string]string {
	switch t {
	case benchmarks.TEST01:
		// Log about a hundred responses of the performance run to compare
		// with the accuracy run.
		return map[string]string{"accuracy_log_sampling_target": "128", "accuracy_log_rng_seed": "720381539243781796"}
	case benchmarks.TEST04:
		return map[string]string{"performance_issue_same": "1", "performance_issue_same_index": "3"}
	case benchmarks.TEST05:
		return map[string]string{"test05": "1"}
	}
	return nil
}
