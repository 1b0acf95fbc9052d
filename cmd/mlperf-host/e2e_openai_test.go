package main

import (
	endian "encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/llm"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
)

var (
	openaiOnce    sync.Once
	openaiPlugins string
	openaiErr     error
)

// installOpenAI builds the openai plugin into a plugin directory of its
// own, once per test binary, and returns the directory and the binary.
func installOpenAI(t *testing.T) (plugins, entry string) {
	t.Helper()
	openaiOnce.Do(func() {
		dir := filepath.Join(filepath.Dir(binary), "openai-plugins")
		openaiPlugins, openaiErr = installPluginErr(dir, "openai", "../../plugins/openai/cmd/openai", "../../plugins/openai/cmd/openai/plugin.json")
	})
	require.NoError(t, openaiErr)
	return openaiPlugins, filepath.Join(openaiPlugins, "openai", "openai")
}

// openaiPrompts are the e2e prompts' token ids; a canned completion
// counts up from the last one.
var openaiPrompts = [][]int32{{1, 20, 30}, {1, 40}, {1, 60}, {1, 50}, {1, 10, 11}, {1, 7}}

const openaiTokens = 6

// openaiConf keeps the runs short; the canned server answers in
// microseconds.
const openaiConf = `*.*.min_duration = 0
*.*.min_query_count = 24
*.*.performance_sample_count_override = 6
*.SingleStream.target_latency = 1
*.Server.target_qps = 200
*.Server.target_latency = 1000
*.Server.ttft_latency = 1000
*.Server.tpot_latency = 1000
*.Offline.target_qps = 100
`

// openaiRun writes the prompts, the tokenizer and the settings into dir
// and returns the arguments of a llama2-70b run against urls.
func openaiRun(t *testing.T, dir, urls string, extra ...string) []string {
	t.Helper()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(data, 0o755))
	require.NoError(t, llm.WritePrompts(filepath.Join(data, "prompts.json"), openaiPrompts, make([]string, len(openaiPrompts))))
	require.NoError(t, openaitest.WriteTokenizer(filepath.Join(data, "tokenizer.json"), openaitest.DefaultPieces()))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(openaiConf), 0o644))
	plugins, _ := installOpenAI(t)
	return append([]string{"run", "--plugin", "openai", "--plugin-dirs", plugins, "--benchmark", "llama2-70b-99.9",
		"--set", "category=datacenter", "--dataset", "data/prompts.json", "--user-conf", "user.conf",
		"--set", "accuracy.vocab=data/tokenizer.json", "--set", "openai.endpoints=" + urls,
		"--model", "data/tokenizer.json", "--set", fmt.Sprintf("openai.max_tokens=%d", openaiTokens),
		"--set", "openai.concurrency=4", "--set", "host.log_level=info", "--set", "openai.stall_timeout=5s", "--set", "openai.ready_timeout=10s"}, extra...)
}

// TestOpenAIScenarios: `run --plugin openai` against two canned servers
// (frames split at every byte on one, usage only in the last frame on
// both) in each scenario and in accuracy mode: valid logs, both
// endpoints used, and in the accuracy log every sample's token ids are
// the server's completion re-encoded by the tokenizer, counted right.
func TestOpenAIScenarios(t *testing.T) {
	t.Parallel()
	a, err := openaitest.Start(t.Context(), openaitest.Behavior{ZeroUsage: true, SplitBytes: true})
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	b, err := openaitest.Start(t.Context(), openaitest.Behavior{ZeroUsage: true})
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	urls := a.URL() + "," + b.URL()
	for _, sc := range []string{"Offline", "Server", "SingleStream"} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := mlperfHost(t, dir, append(openaiRun(t, dir, urls), "--scenario", sc, "--out", "logs")...)
			assertVerdict(t, r, filepath.Join(dir, "logs"))
			assert.Contains(t, r.stderr, "openai: endpoint "+a.URL()+": ")
			assert.Contains(t, r.stderr, "openai: endpoint "+b.URL()+": ")
			// Each endpoint's share, failures and latency, as a pool's
			// members': the console, the summary, the detail log.
			summary := readFile(t, filepath.Join(dir, "logs"), "mlperf_log_summary.txt")
			detail := readFile(t, filepath.Join(dir, "logs"), "mlperf_log_detail.txt")
			assert.Contains(t, summary, "Plugin Members")
			for _, u := range []string{a.URL(), b.URL()} {
				assert.Regexp(t, `member `+regexp.QuoteMeta(u)+` +openai process: \d+ samples \(\d+\.\d%\)  p50 `, r.stdout)
				assert.Regexp(t, regexp.QuoteMeta(u)+` \(openai, process\) : \d+ samples \(\d+\.\d+%\), 0 failed, p50 `, summary)
				assert.Regexp(t, `"key": "sut_plugin_member", "value": \{"name":"`+regexp.QuoteMeta(u)+`","plugin":"openai"`, detail)
			}
		})
	}
	t.Run("accuracy", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		r := mlperfHost(t, dir, append(openaiRun(t, dir, urls), "--mode", "accuracy", "--out", "acc")...)
		require.Contains(t, []exitcode.Code{exitcode.OK, exitcode.AccuracyBelowTarget}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
		var entries []struct {
			QSL        int    `json:"qsl_idx"`
			Data       string `json:"data"`
			TokenCount int64  `json:"token_count"`
		}
		raw, err := os.ReadFile(filepath.Join(dir, "acc", "mlperf_log_accuracy.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &entries))
		require.Len(t, entries, len(openaiPrompts))
		for _, e := range entries {
			b, err := hex.DecodeString(e.Data)
			require.NoError(t, err)
			got := make([]int32, len(b)/4)
			for i := range got {
				got[i] = int32(endian.LittleEndian.Uint32(b[4*i:]))
			}
			p := openaiPrompts[e.QSL]
			assert.Equal(t, openaitest.Completion(int(p[len(p)-1]), openaiTokens, 64), got, "sample %d", e.QSL)
			assert.Equal(t, int64(openaiTokens), e.TokenCount, "sample %d", e.QSL)
		}
		assert.Contains(t, r.stdout, "'gen_tok_len': 36")
	})
}

// TestOpenAIEndpointDies: of two endpoints, one dies in the middle of a
// stream: the run ends as a failed plugin does, naming the endpoint,
// with no VALID summary and no plugin process left.
func TestOpenAIEndpointDies(t *testing.T) {
	t.Parallel()
	good, err := openaitest.Start(t.Context(), openaitest.Behavior{FrameGap: 0})
	require.NoError(t, err)
	t.Cleanup(func() { good.Close() })
	// The first requests go to the two endpoints in turn (4 in flight
	// each): the doomed one starts its fourth whatever the machine's speed,
	// where a later one might never come if the good one is faster.
	doomed, err := openaitest.Start(t.Context(), openaitest.Behavior{DieAfter: 4})
	require.NoError(t, err)
	t.Cleanup(func() { doomed.Close() })
	dir := t.TempDir()
	_, entry := installOpenAI(t)
	r := mlperfHost(t, dir, append(openaiRun(t, dir, good.URL()+","+doomed.URL()), "--scenario", "Offline",
		"--set", "openai.warmup=0", "--out", "logs")...)
	require.Equal(t, exitcode.PluginFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
	assert.Contains(t, r.stderr, "endpoint "+doomed.URL()+": ")
	summary := readFile(t, filepath.Join(dir, "logs"), "mlperf_log_summary.txt")
	assert.NotContains(t, summary, "Result is : VALID")
	assert.Contains(t, summary, "Result is : INVALID")
	assert.Regexp(t, regexp.QuoteMeta(doomed.URL())+` \(openai, process\) : \d+ samples \(\d+\.\d+%\), [1-9]\d* failed, .*; first error: `, summary,
		"the summary says which endpoint failed, how often and why")
	assertNoProcess(t, entry)
}

// TestOpenAIDescribe: what `plugins describe openai` prints: the
// plugin, its capabilities and every option with its type, default and
// doc.
func TestOpenAIDescribe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins, _ := installOpenAI(t)
	r := mlperfHost(t, dir, "plugins", "describe", "openai", "--plugin-dirs", plugins)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	golden(t, "describe_openai", columns.ReplaceAllString(strings.ReplaceAll(r.stdout, plugins, "$PLUGINS"), "  "))
}
