package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv3"
	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/runner"
	"github.com/mlperf-host/mlperf-host/internal/submission"
)

// audit runs compliance test t with the round's official audit.config
// and writes its directory as the official run_verification.py does:
// TEST0N/{audit.config, performance/run_1/, accuracy/, verify_*.txt}.
func (a *app) audit(ctx context.Context, c *config.Config, l submission.Layout, t benchmarks.Test) error {
	switch t {
	case benchmarks.TEST01, benchmarks.TEST04, benchmarks.TEST06, benchmarks.TEST07, benchmarks.TEST08, benchmarks.TEST09:
	default:
		return exitcode.New(exitcode.Config, fmt.Errorf("%s of %s: mlperf-host does not run %s yet", c.Benchmark.SubmissionName, c.Scenario, t),
			"run it with the official compliance scripts and put its directory in the tree; then submit --check-only")
	}
	text, ok := c.Benchmark.AuditConfigText(t)
	if !ok {
		return exitcode.New(exitcode.Config, fmt.Errorf("round %s publishes no %s audit.config for %s", c.Round.Name, t, c.Benchmark.SubmissionName), "")
	}
	dir := l.ComplianceDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	auditFile := filepath.Join(dir, submission.AuditConfigFile)
	if err := os.WriteFile(auditFile, []byte(text), 0o644); err != nil {
		return err
	}
	if t == benchmarks.TEST07 {
		if err := test07Ready(c); err != nil {
			return err
		}
	}
	run := l.CompliancePerformanceDir(t)
	if _, err := a.runOnce(ctx, runner.Spec{Config: auditRunConfig(c, t), OutDir: run, AuditConfig: auditFile}); err != nil {
		if !judgedOnLog(t) || exitcode.Of(err) != exitcode.InvalidResult {
			return fmt.Errorf("%s %s run: %w", c.Scenario, t, err)
		}
		// The verifier reads the run's accuracy log alone, as does the
		// checker: the run's validity is no part of the test.
		fmt.Fprintf(a.stderr, "mlperf-host: %s %s run: %v (%s is judged on the responses it logged alone)\n", c.Scenario, t, err, t)
	}
	var verdicts []submission.Verdict
	switch t {
	case benchmarks.TEST01:
		acc, err := a.test01Accuracy(c, l)
		if err != nil {
			return err
		}
		perf, err := submission.VerifyTEST01Performance(l.PerformanceDir(), run)
		if err != nil {
			return err
		}
		verdicts = []submission.Verdict{acc, perf}
		err = submission.WriteVerdict(dir, submission.VerifyAcc, acc)
		if err == nil {
			err = submission.WriteVerdict(dir, submission.VerifyPerf, perf)
		}
		if err != nil {
			return err
		}
	case benchmarks.TEST04:
		v, err := verifyTEST04(l.PerformanceDir(), run)
		if err != nil {
			return err
		}
		verdicts = []submission.Verdict{v}
		if err := submission.WriteVerdict(dir, submission.VerifyPerf, v); err != nil {
			return err
		}
	case benchmarks.TEST08:
		v, err := test08(l)
		if err != nil {
			return err
		}
		verdicts = []submission.Verdict{v}
		if err := submission.WriteVerdict(dir, submission.VerifyAcc, v); err != nil {
			return err
		}
	case benchmarks.TEST06, benchmarks.TEST07, benchmarks.TEST09:
		v, name, err := a.verifyLLM(ctx, c, l, t)
		if err != nil {
			return err
		}
		verdicts = []submission.Verdict{v}
		if err := submission.WriteVerdict(dir, name, v); err != nil {
			return err
		}
	}
	for _, v := range verdicts {
		fmt.Fprintf(a.stderr, "%s %s: %s\n", c.Scenario, t, verdictWord(v.Pass))
	}
	return nil
}

func verdictWord(pass bool) string {
	if pass {
		return submission.Pass
	}
	return submission.Fail
}

// test01Accuracy copies the responses the TEST01 run logged into
// TEST01/accuracy (the run's directory keeps them, as LoadGen wrote them,
// so that the official run_verification.py can take it as the compliance
// directory), compares them with the accuracy run's and writes
// accuracy.txt there (their score, for a top-1 benchmark). When they
// differ, a top-1 benchmark also gets the official non-deterministic
// evidence: baseline_accuracy.txt (the accuracy run's score on the same
// samples) and compliance_accuracy.txt.
func (a *app) test01Accuracy(c *config.Config, l submission.Layout) (submission.Verdict, error) {
	t := benchmarks.TEST01
	accDir := l.ComplianceAccuracyDir(t)
	logged, err := copyLogged(l, t)
	if err != nil {
		return submission.Verdict{}, err
	}
	ref, err := os.Open(filepath.Join(l.AccuracyDir(), submission.AccuracyFile))
	if err != nil {
		return submission.Verdict{}, err
	}
	defer ref.Close()
	comp, err := os.Open(logged)
	if err != nil {
		return submission.Verdict{}, err
	}
	defer comp.Close()
	v, err := submission.VerifyTEST01Accuracy(ref, comp, test01DType(c))
	if err != nil {
		return submission.Verdict{}, fmt.Errorf("TEST01 accuracy verification: %w", err)
	}
	summary := fmt.Sprintf("responses logged by TEST01 checked against the accuracy run: %s\n", verdictWord(v.Pass))
	if c.Benchmark.Quality.Metric == benchmarks.Top1 {
		res, err := runner.ScoreAccuracy(c, logged)
		if err != nil {
			return submission.Verdict{}, err
		}
		summary = res.Text() + "\n"
		if !v.Pass {
			if err := baselineAccuracy(c, l, res); err != nil {
				return submission.Verdict{}, err
			}
		}
	}
	return v, os.WriteFile(filepath.Join(accDir, submission.AccuracyText), []byte(summary), 0o644)
}

// copyLogged copies the accuracy log of test t's run into TEST0N/accuracy
// and returns the copy's path.
func copyLogged(l submission.Layout, t benchmarks.Test) (string, error) {
	logged := filepath.Join(l.ComplianceAccuracyDir(t), submission.AccuracyFile)
	return logged, submission.CopyFile(filepath.Join(l.CompliancePerformanceDir(t), submission.AccuracyFile), logged)
}

// baselineAccuracy writes baseline_accuracy.txt and compliance_accuracy.txt
// (the accuracy run's responses to the samples TEST01 logged, as
// create_accuracy_baseline.sh selects them, and TEST01's own, scored).
func baselineAccuracy(c *config.Config, l submission.Layout, compliance resnet.Result) error {
	accDir := l.ComplianceAccuracyDir(benchmarks.TEST01)
	want := map[uint64]bool{}
	f, err := os.Open(filepath.Join(accDir, submission.AccuracyFile))
	if err != nil {
		return err
	}
	err = accuracy.ReadLog(f, func(e accuracy.Entry) error { want[e.QSLIdx] = true; return nil })
	f.Close()
	if err != nil {
		return err
	}
	var base []accuracy.Entry
	f, err = os.Open(filepath.Join(l.AccuracyDir(), submission.AccuracyFile))
	if err != nil {
		return err
	}
	err = accuracy.ReadLog(f, func(e accuracy.Entry) error {
		if want[e.QSLIdx] {
			e.Data = append([]byte(nil), e.Data...)
			base = append(base, e)
		}
		return nil
	})
	f.Close()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "mlperf_log_accuracy_baseline-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = accuracy.WriteLog(tmp, base)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	res, err := runner.ScoreAccuracy(c, tmp.Name())
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(accDir, submission.BaselineAccuracy), []byte(res.Text()+"\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(accDir, submission.ComplianceAcc), []byte(compliance.Text()+"\n"), 0o644)
}

// test01DType is how TEST01 reads a response's first element: the type
// the top-1 checker decodes, else verify_accuracy.py's default (byte).
func test01DType(c *config.Config) submission.DType {
	if c.Benchmark.Quality.Metric != benchmarks.Top1 {
		return submission.Byte
	}
	switch runner.AccuracyOutput(c) {
	case resnet.ClassInt32:
		return submission.Int32
	case resnet.ClassInt64:
		return submission.Int64
	}
	return submission.Float32
}

// verifyTEST04 compares the summaries of the performance and TEST04 runs.
func verifyTEST04(refDir, testDir string) (submission.Verdict, error) {
	ref, err := os.Open(filepath.Join(refDir, submission.SummaryFile))
	if err != nil {
		return submission.Verdict{}, err
	}
	defer ref.Close()
	test, err := os.Open(filepath.Join(testDir, submission.SummaryFile))
	if err != nil {
		return submission.Verdict{}, err
	}
	defer test.Close()
	return submission.VerifyTEST04(ref, test)
}

// test08 copies the responses the TEST08 run logged into TEST08/accuracy
// and compares them with the accuracy run's as the official
// run_verification.py does, by (ts_idx, query_idx) and NE.
func test08(l submission.Layout) (submission.Verdict, error) {
	logged, err := copyLogged(l, benchmarks.TEST08)
	if err != nil {
		return submission.Verdict{}, err
	}
	ref, err := os.Open(filepath.Join(l.AccuracyDir(), submission.AccuracyFile))
	if err != nil {
		return submission.Verdict{}, err
	}
	defer ref.Close()
	comp, err := os.Open(logged)
	if err != nil {
		return submission.Verdict{}, err
	}
	defer comp.Close()
	v, err := dlrmv3.VerifyTEST08(ref, comp, dlrmv3.TEST08Tolerance)
	if err != nil {
		return submission.Verdict{}, fmt.Errorf("TEST08 verification: %w", err)
	}
	return submission.Verdict{Text: v.Text(), Pass: v.Pass()}, nil
}
