package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// interactiveConf keeps the runs short; the Interactive rate is the
// -interactive model's own line, which a run must take over the line for
// every model's Server. 1000 queries are enough for early stopping to
// judge the token latencies (about 5 s at 200 QPS; the bounds, 500 ms
// and 30 ms, are far above what the decoder takes).
const interactiveConf = `*.*.min_duration = 0
*.*.min_query_count = 8
*.Server.target_qps = 3
*.Offline.target_qps = 1
llama3_1-8b-interactive.Server.target_qps = 200
llama3_1-8b-interactive.Server.min_query_count = 1000
`

// TestInteractiveEndToEnd runs llama3.1-8b's Interactive scenario as a
// vendor would, on the decoder fixture of TestBenchmarksEndToEnd: run
// (LoadGen's Server under the -interactive model's rules), config show,
// report, then submit --scenarios Offline,Interactive and check-only of
// the tree it writes.
func TestInteractiveEndToEnd(t *testing.T) {
	t.Parallel()
	plugins, _ := onnxOrt(t)
	model, err := filepath.Abs(filepath.Join("testdata", "benchmarks", "decoder-signature.onnx"))
	require.NoError(t, err)
	dir := t.TempDir()
	writeLlamaFixture([]string{"w31 w32. Mr. w33 w34! w35 w36?", "w44 w43. J. w42 w41.", "W61. W62 w63.", "The w51 w52 tokens."})(t, filepath.Join(dir, "data"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(interactiveConf), 0o644))
	common := []string{"--benchmark", "llama3.1-8b", "--dataset", "data/prompts.json", "--model", model,
		"--plugin", "onnx-ort", "--plugin-dirs", plugins, "--user-conf", "user.conf", "--set", "onnx-ort.max_new_tokens=6",
		"--set", "accuracy.vocab=data/tokenizer.json", "--set", "category=datacenter"}

	r := mlperfHost(t, dir, append([]string{"config", "show", "--scenario", "Interactive"}, common...)...)
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	for _, want := range []string{"user.conf:5 (llama3_1-8b-interactive.Server.target_qps)",
		"mlperf.conf v6.1 (llama3_1-8b-interactive.Server.ttft_latency)", "mlperf.conf v6.1 (llama3_1-8b-interactive.Server.tpot_latency)"} {
		assert.Contains(t, r.stdout, want)
	}

	r = mlperfHost(t, dir, append([]string{"run", "--scenario", "Interactive", "--out", "inter"}, common...)...)
	require.Contains(t, []exitcode.Code{exitcode.OK, exitcode.InvalidResult}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "Interactive (LoadGen's Server) / PerformanceOnly")
	assert.Regexp(t, `tokens per second\s+[0-9.]+  \(the round's result, result_completed_tokens_per_second\)`, r.stdout)
	assert.Regexp(t, `token latency\s+TTFT p99 \S+ \((limit|OVER the limit) 500ms\)  TPOT p99 \S+ \((limit|OVER the limit) 30ms\)`, r.stdout)
	f, err := os.Open(filepath.Join(dir, "inter", "mlperf_log_detail.txt"))
	require.NoError(t, err)
	log, err := mllog.Parse(f)
	f.Close()
	require.NoError(t, err)
	// As the official LoadGen logs an Interactive run.
	for key, want := range map[string]string{
		"effective_scenario": `"Server"`, "requested_server_ttft_latency": "500000000", "requested_server_tpot_latency": "30000000",
		"requested_server_target_latency_ns": "0", "requested_use_token_latencies": "true",
		"effective_sample_concatenate_permutation": "true", "effective_target_qps": "200",
	} {
		raw, ok := log.Raw(key)
		require.True(t, ok, key)
		assert.Equal(t, want, strings.TrimSpace(string(raw)), key)
	}

	r = mlperfHost(t, dir, "report", "inter")
	require.Equal(t, exitcode.OK, r.code, r.stderr)
	page, err := os.ReadFile(filepath.Join(dir, "inter", "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "llama3.1-8b Interactive on onnx-ort")
	assert.Contains(t, string(page), "tokens/s")

	// The open division is held to no quality target: the tiny model's
	// ROUGE does not stop the submission.
	sub := append(append([]string{"submit", "--submission", "sub", "--scenarios", "Offline,Interactive"}, submitTreeFlags("open")...), common...)
	r = mlperfHost(t, dir, sub...)
	res := filepath.Join(dir, "sub", "open", "acme", "results", "box", "llama3.1-8b")
	if sc := submitStopped(t, r, res); sc != "" {
		t.Logf("submit stopped at the %s performance run, INVALID on this machine as its log says", sc)
		return
	}
	require.Contains(t, []exitcode.Code{exitcode.OK, exitcode.SubmissionInvalid}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	for _, p := range []string{"Interactive/performance/run_1/mlperf_log_detail.txt", "Interactive/accuracy/accuracy.txt", "Interactive/user.conf", "Offline/performance/run_1/mlperf_log_detail.txt"} {
		assert.FileExists(t, filepath.Join(res, p))
	}
	conf, err := os.ReadFile(filepath.Join(res, "Interactive", "user.conf"))
	require.NoError(t, err)
	assert.Contains(t, string(conf), "llama3_1-8b-interactive.Server.target_qps = 200")
	assert.Contains(t, string(conf), "llama3_1-8b-interactive.Server.ttft_latency = 500")

	// The checker takes the Interactive directory (a Server run) for
	// what it is; what a 4-prompt data set cannot reach (the data set's
	// sample counts, early stopping) is all it finds.
	r = mlperfHost(t, dir, "submit", "--check-only", "--json", "--submission", "sub")
	var out struct {
		Results []struct {
			Scenario, Unit string
			Problems       []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout+r.stderr)
	scenarios := map[string]string{}
	for _, x := range out.Results {
		scenarios[x.Scenario] = x.Unit
		for _, p := range x.Problems {
			for _, not := range []string{"check_scenarios", "inferred_check", "llm_check", "effective_scenario"} {
				assert.NotContains(t, p, not)
			}
		}
	}
	assert.Equal(t, map[string]string{"Offline": "tokens/s", "Interactive": "tokens/s"}, scenarios)
}
