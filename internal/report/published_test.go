package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Runs of published v5.1 submission trees (mlcommons/
// inference_results_v5.1 at 965182b0), which the developers' shared
// directory holds beside the repository.
const (
	lenovoRes = "lenovo-se100-edge/closed/Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT/"
	lenovoTst = "lenovo-se100-edge/closed/Lenovo/compliance/SE100_RTX2000E_Ada_16GBx1_TRT/"
	nvidiaRes = "nvidia-b200-llm/closed/NVIDIA/results/B200-SXM-180GBx8_TRT/llama2-70b-99/"
	intelRes  = "intel-gnr-cpu/closed/Intel/results/1-node-2S-GNR_128C/llama3_1-8b/"
	redhatRes = "redhat-vllm-empty-trace/closed/RedHat/results/XE8640_4xH100_vLLM/llama3.1-8b/"
)

// published loads a run of a published tree, skipping the test where the
// shared directory does not hold it.
func published(t *testing.T, rel string) (*Run, string) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "real-submissions", "trees", filepath.FromSlash(rel))
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("published run %s not here: the developers' shared directory holds it", rel)
	}
	r, err := Load(dir, nil)
	require.NoError(t, err)
	return r, dir
}

// verdictText is the text of the page's verdict box.
func verdictText(t *testing.T, page string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	require.NoError(t, err)
	v := firstWith(doc, func(n *html.Node) bool { return n.DataAtom == atom.Div && attr(n, "class") == "verdict" })
	require.NotNil(t, v)
	return text(v)
}

// TestPublishedPages renders one page of each kind from published runs:
// edge and datacenter, performance and accuracy. The headline is the
// round's result as the checker's summary prints it; LLM pages show TTFT
// and TPOT p99 against the limits of their scenario, and no latency bound
// where the run has none (target latency 0); accuracy pages the scores,
// the hash and an LLM's dictionary only as accuracy.txt is written.
func TestPublishedPages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, run string
		title     []string
		// headline is in the verdict box; metric rows as checkPage reads
		// them; absent texts the page must not hold.
		headline []string
		metric   map[string][]string
		absent   []string
	}{
		{name: "edge SingleStream", run: lenovoRes + "3d-unet-99/SingleStream/performance/run_1",
			title:    []string{"3d-unet-99 SingleStream on SE100_RTX2000E_Ada_16GBx1_TRT (performance)"},
			headline: []string{"3.68 s", "Early-stopping estimate of the 90th percentile latency"},
			metric:   map[string][]string{"90th percentile latency": {"3.21 s"}}},
		{name: "edge MultiStream", run: lenovoRes + "resnet50/MultiStream/performance/run_1",
			title:    []string{"resnet50 MultiStream on SE100_RTX2000E_Ada_16GBx1_TRT"},
			headline: []string{"1.48 ms", "Early-stopping estimate of the 99th percentile latency per query"}},
		{name: "datacenter LLM Offline", run: nvidiaRes + "Offline/performance/run_1",
			title: []string{"llama2-70b-99 Offline on B200-SXM-180GBx8_TRT"}, headline: []string{"101,527 tokens/s", "Tokens per second"},
			absent: []string{"samples/s<small>"}},
		{name: "datacenter LLM Server", run: nvidiaRes + "Server/performance/run_1",
			title: []string{"llama2-70b-99 Server"}, headline: []string{"99,123 tokens/s"},
			metric: map[string][]string{"Time to first token, 99th percentile": {"436 ms", "Server limit 2 s"},
				"Time per output token, 99th percentile": {"132 ms", "Server limit 200 ms"}},
			absent: []string{"Queries over the latency bound", "Latency constraint met"}},
		{name: "datacenter LLM Interactive", run: nvidiaRes + "Interactive/performance/run_1",
			title: []string{"llama2-70b-99 Interactive on B200-SXM-180GBx8_TRT"}, headline: []string{"59,545 tokens/s"},
			metric: map[string][]string{"Time to first token, 99th percentile": {"140 ms", "Interactive limit 450 ms"},
				"Time per output token, 99th percentile": {"38.1 ms", "Interactive limit 40 ms"}},
			absent: []string{"Queries over the latency bound"}},
		{name: "an empty trace is no trace", run: redhatRes + "Offline/performance/run_1",
			title: []string{"llama3.1-8b Offline on XE8640_4xH100_vLLM"}, headline: []string{"5,777 tokens/s"}},
		{name: "edge accuracy", run: lenovoRes + "resnet50/Offline/accuracy",
			title: []string{"resnet50 Offline on SE100_RTX2000E_Ada_16GBx1_TRT (accuracy)"}, headline: []string{"acc 76.078"}},
		{name: "datacenter LLM accuracy", run: nvidiaRes + "Offline/accuracy",
			title:    []string{"llama2-70b-99 Offline on B200-SXM-180GBx8_TRT (accuracy)"},
			headline: []string{"ROUGE1 44.7347 · ROUGE2 22.3552 · ROUGEL 29.1255 · TOKENS_PER_SAMPLE 273.4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, _ := published(t, tt.run)
			var b bytes.Buffer
			require.NoError(t, Write(&b, r))
			page := b.String()
			checkPage(t, page, pageWant{title: tt.title, runs: 1, metric: tt.metric})
			v := verdictText(t, page)
			for _, h := range tt.headline {
				assert.Contains(t, v, h, "the headline")
			}
			assert.NotContains(t, v, "hash=", "the hash is no headline")
			assert.NotContains(t, v, "{", "nor a dictionary")
			for _, a := range tt.absent {
				assert.NotContains(t, page, a)
			}
			if r.Accuracy != "" {
				assert.Contains(t, page, `<pre class="file">`, "accuracy.txt as written, hash and all, in a detail")
				assert.Contains(t, page, "meets its target")
			}
		})
	}
}

// TestPublishedComparisons compares published runs: datacenter (two
// submitters' llama3.1-8b Server runs, their directories named llama3_1-8b
// and llama3.1-8b) and edge (a run and its TEST01 audit). Each run gets a
// short distinct name, and the page names what they share.
func TestPublishedComparisons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		runs  []string
		names []string
		title string
	}{
		{name: "datacenter", runs: []string{intelRes + "Server/performance/run_1", redhatRes + "Server/performance/run_1"},
			names: []string{"Intel", "RedHat"}, title: "llama3.1-8b Server: Intel vs RedHat"},
		{name: "edge", runs: []string{lenovoRes + "resnet50/SingleStream/performance/run_1", lenovoTst + "resnet50/SingleStream/TEST01/performance/run_1"},
			names: []string{"performance", "TEST01"}, title: "resnet SingleStream: performance vs TEST01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs []*Run
			var dirs []string
			for _, rel := range tt.runs {
				r, dir := published(t, rel)
				runs, dirs = append(runs, r), append(dirs, dir)
			}
			UniqueNames(runs, dirs)
			for i, r := range runs {
				assert.Equal(t, tt.names[i], r.Name)
				assert.LessOrEqual(t, len([]rune(r.Name)), maxName)
			}
			var b bytes.Buffer
			warnings, err := WriteComparison(&b, runs)
			require.NoError(t, err)
			assert.Empty(t, warnings)
			checkPage(t, b.String(), pageWant{title: []string{tt.title}, runs: len(runs)})
		})
	}
}
