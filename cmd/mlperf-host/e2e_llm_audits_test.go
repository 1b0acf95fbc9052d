package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/gptoss"
	"github.com/mlperf-host/mlperf-host/internal/bench/llama405b"
	"github.com/mlperf-host/mlperf-host/internal/bench/mixtral"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// keepAuditsEnv names a directory where TestLLMAuditsEndToEnd leaves the
// trees it writes (DIR/llama3.1-8b/sub, DIR/gpt-oss-120b/sub, with
// DIR/gpt-oss-120b/accuracy_script, TEST07's scoring command), for
// `make verify-llm-audits` to judge with the official run_verification.py.
const keepAuditsEnv = "MLPERF_HOST_AUDITS_KEEP"

// auditsConf: Server and Interactive runs long enough for early
// stopping (1000 queries at 200 QPS, as TestInteractiveEndToEnd), the
// others a handful of queries. The compliance tests' own audit.config
// settings (TEST06: 100 queries, no minimum duration) override these.
const auditsConf = `*.*.min_duration = 0
*.*.min_query_count = 8
*.Offline.target_qps = 1
llama3_1-8b.Server.target_qps = 200
llama3_1-8b.Server.min_query_count = 1000
llama3_1-8b-interactive.Server.target_qps = 200
llama3_1-8b-interactive.Server.min_query_count = 1000
`

// submitTreeFlags are what a submission tree of division needs besides
// the runs: the organization, system and what the machine cannot tell.
func submitTreeFlags(division string) []string {
	return []string{"--set", "division=" + division, "--set", "submitter=acme", "--set", "system=box", "--set", "system_desc.cooling=air",
		"--set", "system_desc.host_networking_topology=N/A", "--set", "system_desc.host_memory_configuration=test machine",
		"--set", "measurements.retraining=No", "--set", "measurements.starting_weights_filename=decoder-signature.onnx",
		"--set", "measurements.input_data_types=int32", "--set", "measurements.weight_data_types=fp32", "--set", "measurements.weight_transformations=none"}
}

// auditsDir is the test's directory: under keepAuditsEnv when set.
func auditsDir(t *testing.T, name string) string {
	t.Helper()
	keep := os.Getenv(keepAuditsEnv)
	if keep == "" {
		return t.TempDir()
	}
	dir := filepath.Join(keep, name)
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// checkedProblems runs submit --check-only --json on the tree and
// returns every result's problems by scenario.
func checkedProblems(t *testing.T, dir string) map[string][]string {
	t.Helper()
	r := mlperfHost(t, dir, "submit", "--check-only", "--json", "--submission", "sub")
	var out struct {
		Results []struct {
			Scenario string
			Problems []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout+r.stderr)
	problems := map[string][]string{}
	for _, x := range out.Results {
		problems[x.Scenario] = append(problems[x.Scenario], x.Problems...)
	}
	return problems
}

// TestLLMAuditsEndToEnd submits closed datacenter LLM trees as a vendor
// would, on the decoder fixture of TestBenchmarksEndToEnd.
func TestLLMAuditsEndToEnd(t *testing.T) {
	t.Parallel()
	plugins, _ := onnxOrt(t)
	model, err := filepath.Abs(filepath.Join("testdata", "benchmarks", "decoder-signature.onnx"))
	require.NoError(t, err)
	common := []string{"--model", model, "--plugin", "onnx-ort", "--plugin-dirs", plugins, "--user-conf", "user.conf",
		"--set", "onnx-ort.max_new_tokens=6", "--set", "category=datacenter", "--set", "calibration=calibration.md"}
	setup := func(t *testing.T, name string) string {
		dir := auditsDir(t, name)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(auditsConf), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "calibration.md"), []byte("# Calibration\n\nFP32 as trained.\n"), 0o644))
		return dir
	}

	// llama3.1-8b: submit with no --scenarios makes Offline, Server and
	// Interactive, and TEST06 in each. TEST06's Server and Interactive
	// runs (100 queries) are INVALID by early stopping, which does not
	// stop the submission: the verdict reads their logged responses.
	t.Run("llama3.1-8b TEST06", func(t *testing.T) {
		t.Parallel()
		dir := setup(t, "llama3.1-8b")
		writeLlamaFixture([]string{"w31 w32.", "w44 w43.", "W61.", "The w51."})(t, filepath.Join(dir, "data"))
		// No tokenizer for the scorer: the closed division's targets, which
		// the tiny model cannot reach, would stop the submission at the
		// first accuracy run.
		args := append([]string{"submit", "--submission", "sub", "--benchmark", "llama3.1-8b", "--dataset", "data/prompts.json"}, common...)
		r := mlperfHost(t, dir, append(args, submitTreeFlags("closed")...)...)
		res := filepath.Join(dir, "sub", "closed", "acme", "results", "box", "llama3.1-8b")
		scenarios := []string{"Offline", "Server", "Interactive"}
		stopped := submitStopped(t, r, res)
		if stopped != "" {
			// A timed run missed its bound on this machine: the scenarios
			// before it were submitted whole.
			scenarios = submittedBefore(r, scenarios, stopped)
			t.Logf("submit stopped at the %s performance run; checking %v", stopped, scenarios)
		} else {
			// The tiny data set and model reach neither the sample counts
			// nor the targets: the tree's check says so, and only so.
			require.Equal(t, exitcode.SubmissionInvalid, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		}
		for _, sc := range scenarios {
			if sc == "Offline" {
				continue
			}
			assert.Contains(t, r.stderr, sc+" TEST06 run: the result is INVALID: ")
			assert.Contains(t, r.stderr, "(TEST06 is judged on the responses it logged alone)")
		}
		for _, sc := range scenarios {
			assert.Contains(t, r.stderr, sc+" TEST06: TEST PASS")
			verdict, err := os.ReadFile(filepath.Join(res, sc, "TEST06", "verify_accuracy.txt"))
			require.NoError(t, err)
			golden(t, "audits_test06_"+strings.ToLower(sc), string(verdict))
			assert.FileExists(t, filepath.Join(res, sc, "TEST06", "accuracy", "mlperf_log_accuracy.json"))
			assert.FileExists(t, filepath.Join(res, sc, "TEST06", "performance", "run_1", "mlperf_log_detail.txt"))
		}
		if stopped != "" {
			return // the tree is not whole: its check is the other outcome's
		}
		problems := checkedProblems(t, dir)
		assert.Len(t, problems, 3)
		for sc, ps := range problems {
			for _, p := range ps {
				for _, not := range []string{"TEST06", "check_scenarios", "dir_exists_check"} {
					assert.NotContains(t, p, not, sc)
				}
			}
		}
	})

	// Round v6.0's mixtral-8x7b and llama3.1-405b ask TEST06 alone: their
	// Offline runs and TEST06 from their data sets' pickles, in the closed
	// division (no tokenizer, so that the targets the tiny model misses do
	// not end the submission at its accuracy run).
	for _, tt := range []struct {
		benchmark, results string
		write              func(t *testing.T, path string)
	}{
		{benchmark: "mixtral-8x7b", results: "mixtral-8x7b", write: func(t *testing.T, path string) {
			rows := make([]mixtral.Row, len(decoderPrompts))
			for i, p := range decoderPrompts {
				rows[i] = mixtral.Row{Kind: []string{mixtral.OpenOrca, mixtral.GSM8K}[i%2], Tokens: p, Target: "46"}
			}
			require.NoError(t, mixtral.WriteData(path, rows))
		}},
		{benchmark: "llama3.1-405b", results: "llama3.1-405b", write: func(t *testing.T, path string) {
			rows := make([]llama405b.Row, len(decoderPrompts))
			for i, p := range decoderPrompts {
				rows[i] = llama405b.Row{Tokens: p, Target: "w41", Metric: llama405b.MetricQA}
			}
			require.NoError(t, llama405b.WriteData(path, rows))
		}},
	} {
		t.Run(tt.benchmark+" TEST06", func(t *testing.T) {
			t.Parallel()
			dir := setup(t, tt.benchmark)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
			tt.write(t, filepath.Join(dir, "data", "data.pkl"))
			args := append([]string{"submit", "--submission", "sub", "--round", "v6.0", "--benchmark", tt.benchmark,
				"--scenarios", "Offline", "--dataset", "data/data.pkl"}, common...)
			r := mlperfHost(t, dir, append(args, submitTreeFlags("closed")...)...)
			assert.Contains(t, r.stderr, "Offline TEST06: TEST PASS", "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			res := filepath.Join(dir, "sub", "closed", "acme", "results", "box", tt.results, "Offline", "TEST06")
			verdict, err := os.ReadFile(filepath.Join(res, "verify_accuracy.txt"))
			require.NoError(t, err)
			golden(t, "audits_test06_"+tt.benchmark, string(verdict))
			assert.FileExists(t, filepath.Join(res, "accuracy", "mlperf_log_accuracy.json"))
		})
	}

	// deepseek-r1: TEST06, the one audit its round asks, in Offline, on
	// the data set's pickle of TestBenchmarksEndToEnd (left unscored, as
	// llama3.1-8b's above).
	t.Run("deepseek-r1 TEST06", func(t *testing.T) {
		t.Parallel()
		dir := setup(t, "deepseek-r1")
		writeDeepSeekFixture(t, filepath.Join(dir, "data"))
		args := append([]string{"submit", "--submission", "sub", "--benchmark", "deepseek-r1", "--scenarios", "Offline",
			"--dataset", "data/dataset.pkl"}, common...)
		r := mlperfHost(t, dir, append(args, submitTreeFlags("closed")...)...)
		res := filepath.Join(dir, "sub", "closed", "acme", "results", "box", "deepseek-r1", "Offline")
		if stopped := submitStopped(t, r, filepath.Dir(res)); stopped != "" {
			// A timed run missed its bound on this machine: nothing
			// after it was run.
			t.Logf("submit stopped at the %s performance run", stopped)
			return
		}
		assert.Contains(t, r.stderr, "Offline TEST06: TEST PASS", "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		verdict, err := os.ReadFile(filepath.Join(res, "TEST06", "verify_accuracy.txt"))
		require.NoError(t, err)
		assert.Equal(t, "First token check pass: Skipped\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n", string(verdict))
		assert.FileExists(t, filepath.Join(res, "TEST06", "accuracy", "mlperf_log_accuracy.json"))
		assert.FileExists(t, filepath.Join(res, "TEST06", "performance", "run_1", "mlperf_log_detail.txt"))
	})

	// gpt-oss-120b, its sets pickled DataFrames as the reference's: TEST07
	// runs on its compliance set (990 prompts, test07.dataset), every
	// response logged once and scored by test07.accuracy_script (here a
	// script that counts them); TEST09 on the performance set (6396
	// prompts), whose six-token outputs fall short of the official window.
	t.Run("gpt-oss-120b TEST07 TEST09", func(t *testing.T) {
		t.Parallel()
		dir := setup(t, "gpt-oss-120b")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
		prompts := func(n int) []gptoss.Sample {
			out := make([]gptoss.Sample, n)
			for i := range out {
				out[i] = gptoss.Sample{Tokens: []int64{1, int64(20 + i%40)}, Dataset: "gpqa_diamond", Truth: "A"}
			}
			return out
		}
		require.NoError(t, gptoss.WriteSet(filepath.Join(dir, "data", "perf.pkl"), prompts(6396), false))
		require.NoError(t, gptoss.WriteSet(filepath.Join(dir, "data", "gpqa.pkl"), prompts(990), true))
		script := filepath.Join(dir, "score.sh")
		require.NoError(t, os.WriteFile(script, []byte(`n=$(grep -o '"qsl_idx"' "$1" | wc -l | tr -d ' ')
echo "scored $n responses"
echo "{'exact_match': $((n * 100 / 990)).0, 'num-samples': $n}"
`), 0o644))
		command := "sh " + script + " {accuracy_log}"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "accuracy_script"), []byte(command), 0o644))
		args := append([]string{"submit", "--submission", "sub", "--benchmark", "gpt-oss-120b", "--scenarios", "Offline",
			"--dataset", "data/perf.pkl", "--set", "test07.dataset=data/gpqa.pkl", "--set", "test07.accuracy_script=" + command}, common...)
		r := mlperfHost(t, dir, append(args, submitTreeFlags("closed")...)...)
		require.Equal(t, exitcode.SubmissionInvalid, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Contains(t, r.stderr, "Offline TEST07: TEST PASS")
		assert.Contains(t, r.stderr, "Offline TEST09: TEST FAIL")
		off := filepath.Join(dir, "sub", "closed", "acme", "results", "box", "gpt-oss-120b", "Offline")
		for _, f := range []struct{ test, file string }{{"TEST07", "verify_accuracy.txt"}, {"TEST09", "verify_output_len.txt"}} {
			b, err := os.ReadFile(filepath.Join(off, f.test, f.file))
			require.NoError(t, err)
			golden(t, "audits_"+strings.ToLower(f.test)+"_offline", string(b))
			assert.FileExists(t, filepath.Join(off, f.test, "accuracy", "mlperf_log_accuracy.json"))
			assert.NoFileExists(t, filepath.Join(off, f.test, "performance", "run_1", "mlperf_log_accuracy.json"), "moved to accuracy/")
			assert.FileExists(t, filepath.Join(off, f.test, "performance", "run_1", "mlperf_log_summary.txt"))
		}
		audit, err := os.ReadFile(filepath.Join(off, "TEST07", "audit.config"))
		require.NoError(t, err)
		assert.Contains(t, string(audit), "*.*.test07_accuracy_threshold = 60.698\n")
		assert.Contains(t, string(audit), "*.*.performance_issue_unique = 1\n")
		problems := strings.Join(checkedProblems(t, dir)["Offline"], "\n")
		assert.NotContains(t, problems, "TEST07")
		assert.Contains(t, problems, "TEST09 did not pass (accuracy_check)")
	})

	// gpt-oss-120b in the reference's pickled DataFrames: the accuracy run
	// on the accuracy set (accuracy.dataset), TEST07 on the GPQA compliance
	// set, both scored by mlperf-host's gpt-oss scorer with the decoder's
	// tokenizer. Of the 990 compliance answers 693 are right (prompts
	// ending in 9 answer C, gptoss.DecoderVocab), 70%: TEST07 passes its
	// 60.698 threshold, scored against the compliance set's own ground
	// truth, not accuracy.truth's. The accuracy set's three answers are
	// right, 100%; TEST09 fails (six-token outputs).
	t.Run("gpt-oss-120b TEST07 by its scorer", func(t *testing.T) {
		t.Parallel()
		dir := setup(t, "gpt-oss-120b-scored")
		data := filepath.Join(dir, "data")
		require.NoError(t, os.MkdirAll(data, 0o755))
		require.NoError(t, gptoss.WriteDecoderTokenizer(data))
		require.NoError(t, gptoss.WriteSet(filepath.Join(data, "acc_eval_inputs.pkl"), []gptoss.Sample{
			{Tokens: []int64{1, 20}, Dataset: "aime25", Truth: "42"},
			{Tokens: []int64{1, 9}, Dataset: "gpqa_diamond", Truth: "C"},
			{Tokens: []int64{1, 30}, Dataset: "gpqa_diamond", Truth: "B"},
		}, true))
		perf := make([]gptoss.Sample, 6396)
		for i := range perf {
			perf[i] = gptoss.Sample{Tokens: []int64{1, int64(20 + i%40)}}
		}
		require.NoError(t, gptoss.WriteSet(filepath.Join(data, "perf_eval_ref.pkl"), perf, false))
		gpqa := make([]gptoss.Sample, 990)
		for i := range gpqa {
			switch i % 10 {
			case 7, 8:
				gpqa[i] = gptoss.Sample{Tokens: []int64{1, 30}, Dataset: "gpqa_diamond", Truth: "A"}
			case 9:
				gpqa[i] = gptoss.Sample{Tokens: []int64{1, 57}, Dataset: "gpqa_diamond", Truth: "D"}
			default:
				gpqa[i] = gptoss.Sample{Tokens: []int64{1, 9}, Dataset: "gpqa_diamond", Truth: "C"}
			}
		}
		require.NoError(t, gptoss.WriteSet(filepath.Join(data, "acc_eval_compliance_gpqa.pkl"), gpqa, true))
		// For make verify-llm-audits: the official eval_mlperf_accuracy.py on
		// the same log and set, its standard output alone (its stderr logs
		// times), as TEST07's --accuracy-script.
		require.NoError(t, os.WriteFile(filepath.Join(dir, "accuracy_script"), []byte(`PYTHONPATH="$ACCURACYREF_SHIMS" /usr/bin/python3 "$GPTOSS_EVAL" `+
			`--mlperf-log {accuracy_log} --reference-data `+filepath.Join(data, "acc_eval_compliance_gpqa.pkl")+` --tokenizer `+data+` 2>/dev/null`), 0o644))
		args := append([]string{"submit", "--submission", "sub", "--benchmark", "gpt-oss-120b", "--scenarios", "Offline",
			"--dataset", "data/perf_eval_ref.pkl", "--set", "accuracy.dataset=data/acc_eval_inputs.pkl", "--set", "accuracy.truth=data/acc_eval_inputs.pkl",
			"--set", "accuracy.vocab=data/tokenizer.json", "--set", "test07.dataset=data/acc_eval_compliance_gpqa.pkl"}, common...)
		r := mlperfHost(t, dir, append(args, submitTreeFlags("closed")...)...)
		require.Equal(t, exitcode.SubmissionInvalid, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Contains(t, r.stderr, "Offline TEST07: TEST PASS")
		assert.Contains(t, r.stderr, "Offline TEST09: TEST FAIL")
		off := filepath.Join(dir, "sub", "closed", "acme", "results", "box", "gpt-oss-120b", "Offline")
		acc, err := os.ReadFile(filepath.Join(off, "accuracy", "accuracy.txt"))
		require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.True(t, strings.HasPrefix(string(acc), "'exact_match': 100.000\n"), "%s", acc)
		b, err := os.ReadFile(filepath.Join(off, "TEST07", "verify_accuracy.txt"))
		require.NoError(t, err)
		golden(t, "audits_test07_scored_offline", string(b))
		assert.Contains(t, string(b), "gpqa_diamond                   693      990        5     138.60     70.00%\n")
		assert.Contains(t, string(b), "\n'exact_match': 70.000\n")
		// The tree's check finds the accuracy run's score and TEST07's verdict
		// sound; what the tiny model and data set cannot reach, it reports.
		problems := strings.Join(checkedProblems(t, dir)["Offline"], "\n")
		assert.NotContains(t, problems, "TEST07")
		assert.NotContains(t, problems, "Offline/accuracy/")
		assert.Contains(t, problems, "TEST09 did not pass (accuracy_check)")
	})
}
