//go:build ollama

package main

import (
	"context"
	endian "encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/llm"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/submission"
	"github.com/mlperf-host/mlperf-host/internal/tinyllama"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// The Ollama end-to-end test needs real servers: `make test-ollama` runs
// it inside scripts/with-ollama.sh, which starts two Ollama processes
// serving the tiny llama model (internal/tinyllama) and names them in
// the environment. Without them it fails.

// ollamaMaxTokens is every completion's length: the model never emits
// EOS, so each is exactly this long.
const ollamaMaxTokens = 16

// ollamaConf keeps the runs to a few dozen requests of a tiny model on
// two loaded cores, whatever the verdict.
const ollamaConf = `*.*.min_duration = 0
*.*.min_query_count = 16
*.*.performance_sample_count_override = 8
*.SingleStream.min_query_count = 8
*.SingleStream.target_latency = 1000
*.Server.target_qps = 20
*.Server.target_latency = 100000
*.Server.ttft_latency = 100000
*.Server.tpot_latency = 100000
*.Offline.target_qps = 1
`

// ollamaPrompts are the generated llama3.1-8b data set's prompts, in the
// tiny model's characters.
var ollamaPrompts = []string{
	"Summarize: the cat sat on the mat.",
	"A quick brown fox jumps over the lazy dog; twice!",
	"Hello",
	"What is 12 + 30? (Answer in words.)",
	"It was the best of times, it was the worst of times.",
	"Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
	"\"Quoted\" and 'single'-quoted words",
	"x",
}

// TestOllamaOpenAI runs a generated llama3.1-8b benchmark through
// --plugin openai against two Ollama servers: Offline, Server,
// SingleStream and Interactive performance runs, an accuracy run whose
// log holds, for every sample, the token ids of the text Ollama
// generates (encoded with the model's tokenizer.json), its first token
// and its count, and TEST06's run, which its rules pass.
func TestOllamaOpenAI(t *testing.T) {
	t.Parallel()
	list, model, modelDir := os.Getenv("OLLAMA_TEST_ENDPOINTS"), os.Getenv("OLLAMA_TEST_MODEL"), os.Getenv("OLLAMA_TEST_DIR")
	require.True(t, list != "" && model != "" && modelDir != "",
		"no Ollama servers: run this test with make test-ollama (scripts/with-ollama.sh sets OLLAMA_TEST_ENDPOINTS, OLLAMA_TEST_MODEL, OLLAMA_TEST_DIR)")
	endpoints := strings.Split(list, ",")
	require.Len(t, endpoints, 2, "two Ollama servers")
	vocab := filepath.Join(modelDir, tinyllama.TokenizerFile)
	tok, err := tokenizer.Open(vocab)
	require.NoError(t, err)

	dir := t.TempDir()
	plugins, _ := installOpenAI(t)
	ids := make([][]int32, len(ollamaPrompts))
	want := make([][]int32, len(ollamaPrompts))
	targets := make([]string, len(ollamaPrompts))
	for i, p := range ollamaPrompts {
		ids[i] = tok.Encode(p)
		require.Equal(t, p, tok.Decode(ids[i], true), "the prompt the plugin sends as text")
		// What the model answers, asked of one server directly: the
		// references, so that ROUGE scores the plugin's ids at 100.
		targets[i] = ollamaComplete(t, endpoints[i%2], model, p)
		want[i] = tok.Encode(targets[i])
		require.Len(t, want[i], ollamaMaxTokens, "%q answers %q", p, targets[i])
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	require.NoError(t, llm.WritePrompts(filepath.Join(dir, "data", "prompts.json"), ids, targets))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(ollamaConf), 0o644))

	base := []string{"run", "--benchmark", "llama3.1-8b", "--dataset", "data/prompts.json", "--user-conf", "user.conf",
		"--plugin", "openai", "--plugin-dirs", plugins,
		"--set", "openai.endpoints=" + list, "--set", "openai.model=" + model, "--set", "openai.api=completions",
		"--model", vocab, "--set", "openai.prompt=text", "--set", "openai.token_ids=tokenizer",
		"--set", "openai.max_tokens=" + strconv.Itoa(ollamaMaxTokens), "--set", "openai.concurrency=4",
		"--set", "accuracy.vocab=" + vocab, "--set", "host.log_level=info"}
	datacenter := append(base[:len(base):len(base)], "--set", "category=datacenter")
	edge := append(base[:len(base):len(base)], "--set", "category=edge")

	// One run at a time (subtests not parallel): the servers share the
	// machine's cores with the runs, and Server's first tokens need them.
	for _, tc := range []struct {
		name, scenario string
		args           []string
		spread         bool // both endpoints answer requests
	}{
		{name: "Offline", scenario: "Offline", args: datacenter, spread: true},
		{name: "Server", scenario: "Server", args: datacenter},
		{name: "SingleStream", scenario: "SingleStream", args: edge},
		// LoadGen's Server under the round's Interactive bounds, which a
		// loaded CPU misses: a verdict, whichever.
		{name: "Interactive", scenario: "Interactive", args: datacenter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := "perf-" + tc.name
			r := mlperfHost(t, dir, append(tc.args, "--scenario", tc.scenario, "--out", out)...)
			require.Contains(t, []exitcode.Code{exitcode.OK, exitcode.InvalidResult}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assertVerdict(t, r, filepath.Join(dir, out))
			if tc.spread {
				for _, e := range endpoints {
					assert.Regexp(t, `member `+regexp.QuoteMeta(e)+` +openai process: \d+ samples \(\d+\.\d%\)`, r.stdout,
						"the endpoint's share is on the console")
				}
			}
		})
	}

	// Accuracy in Server, whose log holds each sample's first token.
	t.Run("accuracy", func(t *testing.T) {
		r := mlperfHost(t, dir, append(datacenter, "--scenario", "Server", "--mode", "accuracy", "--out", "acc")...)
		require.Contains(t, []exitcode.Code{exitcode.OK, exitcode.AccuracyBelowTarget}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Contains(t, r.stdout, "'rouge1': '100.0")
		seen := checkTokenLog(t, filepath.Join(dir, "acc"), want, targets, true)
		assert.Len(t, seen, len(want), "every sample in the accuracy log")
	})

	// TEST06 with the round's audit.config (100 queries), checked by its
	// rules; its log holds the same ids. In Server, where the first-token
	// check applies (Offline's run would check no more, at twice the
	// time).
	round, err := benchmarks.LookupRound(benchmarks.Newest)
	require.NoError(t, err)
	b, err := round.Lookup("llama3.1-8b")
	require.NoError(t, err)
	text, ok := b.AuditConfigText(benchmarks.TEST06)
	require.True(t, ok, "llama3.1-8b has a TEST06 audit.config")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "audit.config"), []byte(text), 0o644))
	t.Run("TEST06", func(t *testing.T) {
		r := mlperfHost(t, dir, append(datacenter, "--scenario", "Server", "--audit-config", "audit.config", "--out", "test06")...)
		require.Contains(t, []exitcode.Code{exitcode.OK, exitcode.InvalidResult}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		checkTokenLog(t, filepath.Join(dir, "test06"), want, targets, true)
		f, err := os.Open(filepath.Join(dir, "test06", "mlperf_log_accuracy.json"))
		require.NoError(t, err)
		defer f.Close()
		v, err := submission.VerifyTEST06(f, "Server", submission.Int32, []int64{tinyllama.EOSID})
		require.NoError(t, err)
		assert.True(t, v.Pass, "TEST06:\n%s", v.Text)
		assert.Contains(t, v.Text, "First token check pass: True")
	})
}

// checkTokenLog checks the accuracy log in dir: every record's ids are
// want's for its sample (the tokenizer's ids of targets, Ollama's text),
// counted right, and with firstToken its first token is logged and is
// the output's first. It returns the samples seen.
func checkTokenLog(t *testing.T, dir string, want [][]int32, targets []string, firstToken bool) map[int]bool {
	t.Helper()
	seen := map[int]bool{}
	for _, e := range readTokenLog(t, filepath.Join(dir, "mlperf_log_accuracy.json")) {
		require.Less(t, e.QSLIdx, len(want))
		seen[e.QSLIdx] = true
		got := int32s(t, e.Data)
		assert.Equal(t, want[e.QSLIdx], got, "sample %d: the tokenizer's ids of Ollama's text %q", e.QSLIdx, targets[e.QSLIdx])
		assert.Equal(t, int64(len(got)), e.TokenCount, "sample %d: token count", e.QSLIdx)
		if firstToken {
			require.NotNil(t, e.TokenData, "sample %d: the first token is logged", e.QSLIdx)
			assert.Equal(t, want[e.QSLIdx][:1], int32s(t, *e.TokenData), "sample %d: first token", e.QSLIdx)
		}
	}
	return seen
}

// tokenEntry is an LLM accuracy log record.
type tokenEntry struct {
	SeqID      int     `json:"seq_id"`
	QSLIdx     int     `json:"qsl_idx"`
	Data       string  `json:"data"`
	TokenData  *string `json:"token_data"`
	TokenCount int64   `json:"token_count"`
}

func readTokenLog(t *testing.T, path string) []tokenEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var entries []tokenEntry
	require.NoError(t, json.Unmarshal(b, &entries))
	require.NotEmpty(t, entries)
	return entries
}

// int32s is the little-endian int32 tokens of a log's hex.
func int32s(t *testing.T, h string) []int32 {
	t.Helper()
	b, err := hex.DecodeString(h)
	require.NoError(t, err)
	require.Zero(t, len(b)%4, "whole int32 tokens")
	ids := make([]int32, len(b)/4)
	for i := range ids {
		ids[i] = int32(endian.LittleEndian.Uint32(b[4*i:]))
	}
	return ids
}

// ollamaComplete is endpoint's greedy completion of prompt, not streamed.
func ollamaComplete(t *testing.T, endpoint, model, prompt string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, err := tinyllama.Complete(ctx, http.DefaultClient, endpoint, model, prompt, ollamaMaxTokens)
	require.NoError(t, err)
	return c.Text
}
