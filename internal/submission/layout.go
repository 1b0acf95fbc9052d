package submission

import (
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Layout names the paths of one benchmark and scenario in a submission
// tree rooted at Root, as the round's checker looks for them (its path
// templates, benchmarks.Round.Paths).
type Layout struct {
	Root, Division, Submitter, System string
	Round                             *benchmarks.Round
	Benchmark                         benchmarks.Benchmark
	Scenario                          benchmarks.Scenario
	// BenchmarkDir and ScenarioName are the directories' names when they
	// are not the benchmark's submission name and the scenario's MLPerf
	// spelling (a published tree's "resnet50" and "offline").
	BenchmarkDir, ScenarioName string
}

// path fills the checker's template named name, under Root.
func (l Layout) path(name string) string {
	bench, sc := l.Benchmark.SubmissionName, string(l.Scenario)
	if l.BenchmarkDir != "" {
		bench = l.BenchmarkDir
	}
	if l.ScenarioName != "" {
		sc = l.ScenarioName
	}
	p := l.Round.Path(name, l.Division, l.Submitter, l.System, bench, sc)
	return filepath.Join(l.Root, filepath.FromSlash(p))
}

func (l Layout) org() string { return filepath.Join(l.Root, l.Division, l.Submitter) }

// SystemFile is systems/SYSTEM.json.
func (l Layout) SystemFile() string { return l.path("system_path") }

// SrcDir is src/ (v6.x) or code/ (v5.1): the submitter's code.
func (l Layout) SrcDir() string { return l.path("src_path") }

// CodeDir is the benchmark's directory in SrcDir.
func (l Layout) CodeDir() string { return filepath.Join(l.SrcDir(), l.Benchmark.SubmissionName) }

// CalibrationFile is documentation/calibration.md, which the closed
// division must have.
func (l Layout) CalibrationFile() string {
	return filepath.Join(l.org(), "documentation", "calibration.md")
}

// ScenarioDir is results/SYSTEM/BENCHMARK/SCENARIO.
func (l Layout) ScenarioDir() string { return filepath.Dir(l.AccuracyDir()) }

// PerformanceDir is results/.../performance/run_1.
func (l Layout) PerformanceDir() string { return filepath.Dir(l.path("performance_log_path")) }

// AccuracyDir is results/.../accuracy.
func (l Layout) AccuracyDir() string { return filepath.Dir(l.path("accuracy_json_path")) }

// MeasurementsFile is where mlperf-host writes the measurements
// description: measurements.json next to the results (v6.x), or
// measurements/.../SYSTEM_mlperf-host_SCENARIO.json (v5.1, whose checker
// takes the first SYSTEM*.json there: [FindMeasurementsFile]).
func (l Layout) MeasurementsFile() string {
	p := l.path("measurements_path")
	if strings.HasSuffix(p, "{file}") {
		return filepath.Join(filepath.Dir(p), l.System+"_mlperf-host_"+string(l.Scenario)+".json")
	}
	return p
}

// FindMeasurementsFile returns the measurements description the checker
// reads: measurements.json next to the results (v6.x); in v5.1's
// measurements/SYSTEM/BENCHMARK/SCENARIO/, the first file, in sorted
// order, whose name starts with the system's and ends in .json (the
// checker looks for SYSTEM*_SCENARIO.json, else SYSTEM*.json, but takes
// the first of either it lists: SYSTEM.json before SYSTEM_Offline.json).
// found is false when there is none.
func (l Layout) FindMeasurementsFile() (path string, found bool) {
	p := l.path("measurements_path")
	if !strings.HasSuffix(p, "{file}") {
		return p, true
	}
	dir := filepath.Dir(p)
	for _, f := range files(dir) {
		if strings.HasPrefix(f, l.System) && strings.HasSuffix(f, ".json") {
			return filepath.Join(dir, f), true
		}
	}
	return dir, false
}

// MeasurementsDir holds measurements.json, user.conf and README.md.
func (l Layout) MeasurementsDir() string { return filepath.Dir(l.MeasurementsFile()) }

// PowerDir is results/.../performance/power: a power submission's PTD
// logs and session descriptions.
func (l Layout) PowerDir() string { return l.path("power_dir_path") }

// RangingDir is results/.../performance/ranging: the power submission's
// ranging run.
func (l Layout) RangingDir() string {
	return filepath.Join(filepath.Dir(l.PerformanceDir()), "ranging")
}

// ComplianceDir is the directory of compliance test t: results/.../TEST0N
// (v6.x) or compliance/.../TEST0N (v5.1).
func (l Layout) ComplianceDir(t benchmarks.Test) string {
	return filepath.Join(l.path("compliance_path"), string(t))
}

// CompliancePerformanceDir is TEST0N/performance/run_1.
func (l Layout) CompliancePerformanceDir(t benchmarks.Test) string {
	return filepath.Join(l.ComplianceDir(t), "performance", "run_1")
}

// ComplianceAccuracyDir is TEST0N/accuracy.
func (l Layout) ComplianceAccuracyDir(t benchmarks.Test) string {
	return filepath.Join(l.ComplianceDir(t), "accuracy")
}

// File names of the logs and reports.
const (
	SummaryFile      = "mlperf_log_summary.txt"
	DetailFile       = "mlperf_log_detail.txt"
	AccuracyFile     = "mlperf_log_accuracy.json"
	AccuracyText     = "accuracy.txt"
	VerifyAcc        = "verify_accuracy.txt"
	VerifyPerf       = "verify_performance.txt"
	VerifyOutputLen  = "verify_output_len.txt"
	AuditConfigFile  = "audit.config"
	BaselineAccuracy = "baseline_accuracy.txt"
	ComplianceAcc    = "compliance_accuracy.txt"
)
