package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/qwen3vl"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
)

// qwen3vlConf keeps the runs short; the canned server answers in
// microseconds, far inside the 1.5 s Interactive and 12 s Server bounds.
const qwen3vlConf = `*.*.min_duration = 0
*.*.min_query_count = 24
*.*.performance_sample_count_override = 12
*.Server.target_qps = 200
*.Offline.target_qps = 100
`

// qwen3vlAnswer is the canned VLM's reply to a product, by its index:
// right (every third), the top level of the category only with the brand
// misspelt, or prose the schema refuses.
func qwen3vlAnswer(i int, p qwen3vl.Product) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch i % 3 {
	case 0:
		return fmt.Sprintf(`{"category": %s, "brand": %s, "is_secondhand": %t}`, q(p.Category), q(p.Brand), p.Secondhand)
	case 1:
		top, _, _ := strings.Cut(p.Category, " > ")
		return fmt.Sprintf(`{"category": %s, "brand": %s, "is_secondhand": "no"}`, q(top+" > Elsewhere"), q(p.Brand+"xx"))
	}
	return "The product is a " + p.Title
}

// qwen3vlF1 is the category hierarchical F1 of those answers, worked
// from its definition: a right answer shares all its levels, a top-level
// one one of its two, a refused one none of as many padding levels as
// the truth has.
func qwen3vlF1(ps []qwen3vl.Product) float64 {
	var common, predicted, truth int
	for i, p := range ps {
		n := len(strings.Split(p.Category, " > "))
		truth += n
		switch i % 3 {
		case 0:
			common, predicted = common+n, predicted+n
		case 1:
			common, predicted = common+1, predicted+2
		default:
			predicted += n
		}
	}
	hp, hr := float64(common)/float64(predicted), float64(common)/float64(truth)
	return 2 * (hp * hr) / (hp + hr)
}

// TestQwen3VLEndToEnd runs qwen3-vl-235b-a22b as a vendor would against
// an OpenAI-compatible server: the catalogue in its Hugging Face Parquet
// form (two splits), the openai plugin sending each sample's chat
// messages (the image as a data URL) and completing with the reply's
// text, to a canned VLM that answers each product from its prompt;
// Offline, Server and Interactive performance runs and an accuracy run
// scored as evaluation.py scores it.
func TestQwen3VLEndToEnd(t *testing.T) {
	t.Parallel()
	products := qwen3vl.FixtureProducts(12, 3)
	byTitle := map[string]int{}
	for i, p := range products {
		byTitle[p.Title] = i
	}
	srv, err := openaitest.Start(t.Context(), openaitest.Behavior{Answer: func(m []byte) string {
		var msgs []struct {
			Content json.RawMessage `json:"content"`
		}
		var parts []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(m, &msgs) != nil || len(msgs) != 2 || json.Unmarshal(msgs[1].Content, &parts) != nil || len(parts) != 2 {
			return "unexpected messages"
		}
		title, _, _ := strings.Cut(strings.TrimPrefix(parts[0].Text, "The title of the product is the following:\n```text\n"), "\n```")
		i, ok := byTitle[title]
		if !ok {
			return "unknown product"
		}
		return qwen3vlAnswer(i, products[i])
	}})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })

	dir := t.TempDir()
	if keep := os.Getenv(keepBenchEnv); keep != "" {
		dir = filepath.Join(keep, "qwen3-vl")
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	data := filepath.Join(dir, "data")
	require.NoError(t, qwen3vl.WriteCatalogue(data, "train", products[:8], 5))
	require.NoError(t, qwen3vl.WriteCatalogue(data, "test", products[8:], 0))
	// The rows the verification hands evaluation.py (make verify-accuracy).
	require.NoError(t, qwen3vl.WriteRecords(filepath.Join(data, "records.json"), products))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(qwen3vlConf), 0o644))
	plugins, _ := installOpenAI(t)
	common := []string{"--plugin", "openai", "--plugin-dirs", plugins, "--benchmark", "qwen3-vl-235b-a22b",
		"--set", "category=datacenter", "--dataset", "data", "--user-conf", "user.conf", "--model", "data",
		"--set", "openai.endpoints=" + srv.URL(), "--set", "openai.api=chat",
		"--set", "openai.concurrency=4", "--set", "openai.stall_timeout=5s", "--set", "openai.ready_timeout=10s"}

	r := mlperfHost(t, dir, "dataset", "info", "data")
	require.Equal(t, exitcode.OK, r.code, "stderr:\n%s", r.stderr)
	assert.Contains(t, r.stdout, "Qwen3-VL product catalogue (Hugging Face Parquet: 2 file(s)")
	assert.Contains(t, r.stdout, "samples  12")

	// The runs share the directory and the server: one after another.
	for _, sc := range []string{"Offline", "Server", "Interactive"} {
		t.Run(sc, func(t *testing.T) {
			out := "perf-" + strings.ToLower(sc)
			r := mlperfHost(t, dir, append([]string{"run", "--scenario", sc, "--out", out}, common...)...)
			assertVerdict(t, r, filepath.Join(dir, out))
			if sc == "Interactive" {
				detail := readFile(t, filepath.Join(dir, out), "mlperf_log_detail.txt")
				assert.Contains(t, detail, `"key": "requested_server_target_latency_ns", "value": 1500000000`)
			}
		})
	}

	t.Run("accuracy", func(t *testing.T) { // after the others: it reads every request the server saw
		r := mlperfHost(t, dir, append([]string{"run", "--mode", "accuracy", "--out", "acc"}, common...)...)
		require.Equal(t, exitcode.AccuracyBelowTarget, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, tail(r.stderr))
		want := `{"f1": ` + py.Float(qwen3vlF1(products)) + `}`
		assert.Contains(t, r.stdout, want)
		acc := readFile(t, filepath.Join(dir, "acc"), "accuracy.txt")
		assert.Contains(t, acc, want)
		// The log holds the replies' text, as the reference logs them.
		log := readFile(t, filepath.Join(dir, "acc"), "mlperf_log_accuracy.json")
		var entries []struct {
			QSL  int    `json:"qsl_idx"`
			Data string `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(log), &entries))
		require.Len(t, entries, len(products))
		for _, e := range entries {
			assert.Equal(t, fmt.Sprintf("%x", qwen3vlAnswer(e.QSL, products[e.QSL])), strings.ToLower(e.Data), "sample %d", e.QSL)
		}
		// Every request carried the product's image as a data URL.
		for _, req := range srv.Requests() {
			assert.Contains(t, string(req.Body), `"image_url":{"url":"data:image/PNG;base64,`)
		}
	})
}
