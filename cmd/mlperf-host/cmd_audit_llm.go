package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/bench"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/submission"
)

// judgedOnLog reports whether test t's verdict reads the run's accuracy
// log alone (TEST06, TEST07, TEST09), so that the run's own LoadGen
// validity does not stop the submission.
func judgedOnLog(t benchmarks.Test) bool {
	return t == benchmarks.TEST06 || t == benchmarks.TEST07 || t == benchmarks.TEST09
}

// auditRunConfig is the configuration of test t's run: a performance
// run; TEST07's on its own data set where test07.dataset names one, with
// as many samples loaded as the audit.config's min_query_count (the
// compliance set's size: mlperf.conf's performance_sample_count_override
// is the performance set's).
func auditRunConfig(c *config.Config, t benchmarks.Test) *config.Config {
	n := c.WithMode(config.ModePerformance)
	if t != benchmarks.TEST07 || c.TEST07Dataset == "" {
		return n
	}
	n.Dataset = c.TEST07Dataset
	if count, err := c.Benchmark.AuditValue(t, "min_query_count"); err == nil {
		n = n.With(config.Source{Layer: config.LayerFlag, Where: "TEST07's audit.config min_query_count, the size of test07.dataset"},
			map[string]string{"performance_sample_count_override": strconv.FormatFloat(count, 'f', -1, 64)})
	}
	return n
}

// test07Ready says why TEST07 cannot be judged before its run starts:
// neither test07.accuracy_script nor a scorer of mlperf-host's scores
// the benchmark.
func test07Ready(c *config.Config) error {
	if c.TEST07Script != "" {
		return nil
	}
	if _, ok, _ := bench.LookupScorer("", c.Benchmark.Name); ok {
		return nil
	}
	return exitcode.New(exitcode.Config,
		fmt.Errorf("TEST07 of %s: mlperf-host has no scorer of %s, and test07.accuracy_script names none", c.Benchmark.SubmissionName, c.Benchmark.SubmissionName),
		"set test07.accuracy_script to the official accuracy script's command, {accuracy_log} standing for the log, as run_verification.py's --accuracy-script: "+
			`"python3 language/gpt-oss-120b/eval_mlperf_accuracy.py --mlperf-log {accuracy_log} --reference-data acc_eval_compliance_gpqa.parquet --tokenizer openai/gpt-oss-120b"`)
}

// verifyLLM judges an LLM's TEST06, TEST07 or TEST09 run as its
// run_verification.py does, on the responses the run logged, and puts
// them in TEST0N/accuracy; it returns the verdict and its file's name.
// TEST06 copies the log (it is 100 responses); TEST07 and TEST09, which
// log every sample, move it.
func (a *app) verifyLLM(ctx context.Context, c *config.Config, l submission.Layout, t benchmarks.Test) (submission.Verdict, string, error) {
	logged := filepath.Join(l.ComplianceAccuracyDir(t), submission.AccuracyFile)
	from := filepath.Join(l.CompliancePerformanceDir(t), submission.AccuracyFile)
	var err error
	if t == benchmarks.TEST06 {
		err = submission.CopyFile(from, logged)
	} else if err = os.MkdirAll(filepath.Dir(logged), 0o755); err == nil {
		err = os.Rename(from, logged)
	}
	if err != nil {
		return submission.Verdict{}, "", err
	}
	var v submission.Verdict
	name := submission.VerifyAcc
	switch t {
	case benchmarks.TEST06:
		v, err = test06(c, logged)
	case benchmarks.TEST07:
		v, err = a.test07(ctx, c, logged)
	case benchmarks.TEST09:
		name = submission.VerifyOutputLen
		v, err = test09(c, logged)
	}
	if err != nil {
		return submission.Verdict{}, "", fmt.Errorf("%s verification: %w", t, err)
	}
	return v, name, nil
}

// test06 checks the first tokens, the EOS tokens (the model's, or
// test06.eos_token_id) and the token counts of the logged responses.
func test06(c *config.Config, logged string) (submission.Verdict, error) {
	if len(c.TEST06EOS) == 0 {
		return submission.Verdict{}, exitcode.New(exitcode.Config, fmt.Errorf("%s: no EOS token id known", c.Benchmark.SubmissionName),
			"set test06.eos_token_id to the ids of the model's generation config (eos_token_id)")
	}
	return onLog(logged, func(r io.Reader) (submission.Verdict, error) {
		return submission.VerifyTEST06(r, string(c.Scenario), submission.DType(c.TEST06DType), c.TEST06EOS)
	})
}

// onLog opens the accuracy log at path and judges it with verify.
func onLog(path string, verify func(io.Reader) (submission.Verdict, error)) (submission.Verdict, error) {
	f, err := os.Open(path)
	if err != nil {
		return submission.Verdict{}, err
	}
	defer f.Close()
	return verify(f)
}

// test07 scores the logged responses, with test07.accuracy_script as
// run_verification.py runs its --accuracy-script (a shell command, its
// output and errors together, its exit status not looked at) or with
// mlperf-host's scorer of the benchmark (its official line), and judges
// the score against the audit.config's threshold.
func (a *app) test07(ctx context.Context, c *config.Config, logged string) (submission.Verdict, error) {
	threshold, err := c.Benchmark.AuditValue(benchmarks.TEST07, benchmarks.KeyTEST07Threshold)
	if err != nil {
		return submission.Verdict{}, err
	}
	if c.TEST07Script == "" {
		sc, _, _ := bench.LookupScorer("", c.Benchmark.Name)
		sub := *c
		if c.TEST07Dataset != "" {
			// The compliance set holds its own ground truth, not
			// accuracy.truth's (the accuracy set's).
			sub.Dataset, sub.Scoring.Truth = c.TEST07Dataset, ""
		}
		in, err := scorerInputs(&sub, sc, accuracy.Inputs{})
		if err != nil {
			return submission.Verdict{}, err
		}
		return onLog(logged, func(r io.Reader) (submission.Verdict, error) {
			res, err := sc.Score(r, in)
			if err != nil {
				return submission.Verdict{}, fmt.Errorf("%s scorer: %w", sc.Name, err)
			}
			return submission.VerifyTEST07(accuracy.Output(res), threshold, submission.TEST07Pattern), nil
		})
	}
	abs, err := filepath.Abs(logged)
	if err != nil {
		return submission.Verdict{}, err
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", strings.ReplaceAll(c.TEST07Script, "{accuracy_log}", abs))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if exited := new(exec.ExitError); !errors.As(err, &exited) {
			return submission.Verdict{}, fmt.Errorf("test07.accuracy_script: %w", err)
		}
		fmt.Fprintf(a.stderr, "mlperf-host: test07.accuracy_script: %v\n", err)
	}
	return submission.VerifyTEST07(out.String(), threshold, submission.TEST07Pattern), nil
}

// test09 judges the mean output length of the logged responses against
// the audit.config's bounds.
func test09(c *config.Config, logged string) (submission.Verdict, error) {
	lo, err := c.Benchmark.AuditValue(benchmarks.TEST09, benchmarks.KeyTEST09MinTokens)
	if err != nil {
		return submission.Verdict{}, err
	}
	hi, err := c.Benchmark.AuditValue(benchmarks.TEST09, benchmarks.KeyTEST09MaxTokens)
	if err != nil {
		return submission.Verdict{}, err
	}
	return onLog(logged, func(r io.Reader) (submission.Verdict, error) { return submission.VerifyTEST09(r, lo, hi) })
}
