package submission

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// realTrees are published v5.1 submission trees (mlcommons/
// inference_results_v5.1 at 965182b0, trimmed to what the checkers read)
// that the developers' shared directory holds beside the repository. The
// official checker (mlcommons/inference b66003e1, --version v5.1) accepts
// every result of each.
var realTrees = []string{"intel-gnr-cpu", "krai-open-model-mapping", "lenovo-se100-edge", "nvidia-b200-llm", "redhat-vllm-empty-trace"}

// realTree returns the published tree name, skipping the test where the
// shared directory does not hold it.
func realTree(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "real-submissions", "trees", name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("published submission %s not here (%s): the developers' shared directory holds it", name, dir)
	}
	return dir
}

// copyTree copies a tree into a temporary directory, to break.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return CopyFile(path, filepath.Join(dst, rel))
	}))
	return dst
}

var v51 = benchmarks.MustRound("v5.1")

// verdicts writes each result's verdict and metric, its problems and
// warnings, one line each, as the golden file holds them.
func verdicts(name string, rep *Report) string {
	var b strings.Builder
	for _, res := range rep.Results {
		verdict := "accept"
		if len(rep.Refusals(res.Path, false)) > 0 {
			verdict = "refuse"
		}
		fmt.Fprintf(&b, "%s %s %s %s %.6g %s", name, res.Path, verdict, res.Scenario, res.Metric, res.Unit)
		if res.Inferred {
			b.WriteString(" (inferred)")
		}
		b.WriteString("\n")
	}
	for _, p := range rep.Problems {
		kind := "problem"
		if p.Strict {
			kind = "warning"
		}
		fmt.Fprintf(&b, "%s %s: %s\n", name, kind, p)
	}
	return b.String()
}

// TestCheckRealSubmissions: every result of the published trees is
// accepted, as the official checker accepts it, with the metric its
// summary reports (testdata/real/verdicts.golden: NVIDIA's llama2-70b-99
// Offline 101527 tokens/s, Lenovo's 3d-unet-99 SingleStream 3683.79 ms).
func TestCheckRealSubmissions(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, name := range realTrees {
		rep := Check(realTree(t, name), v51)
		assert.Empty(t, rep.Errors(false), name)
		b.WriteString(verdicts(name, rep))
	}
	golden(t, "testdata/real/verdicts.golden", b.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

// setKey rewrites the first record of key in a detail log to value (JSON).
func setKey(t testing.TB, path, key, value string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	re := regexp.MustCompile(`("key": "` + regexp.QuoteMeta(key) + `", "value": )("[^"]*"|[^,]*)`)
	require.True(t, re.Match(b), "%s has no %s", path, key)
	done := false
	b = re.ReplaceAllFunc(b, func(m []byte) []byte {
		if done {
			return m
		}
		done = true
		return re.ReplaceAll(m, []byte("${1}"+value))
	})
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// brokenCase is a published tree broken one way, and the results the
// official checker refuses for it.
type brokenCase struct {
	name, tree string
	breaks     func(t *testing.T, root string)
	// refused are the results refused; want a problem's text; warns that
	// mlperf-host's own rules warn.
	refused []string
	want    string
	warns   bool
}

// Paths in the published trees.
const (
	nvRes       = "closed/NVIDIA/results/B200-SXM-180GBx8_TRT/llama2-70b-99/"
	nvComp      = "closed/NVIDIA/compliance/B200-SXM-180GBx8_TRT/llama2-70b-99/"
	nvMeas      = "closed/NVIDIA/measurements/B200-SXM-180GBx8_TRT/llama2-70b-99/"
	lenRes      = "closed/Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT/"
	lenComp     = "closed/Lenovo/compliance/SE100_RTX2000E_Ada_16GBx1_TRT/"
	lenSys      = "closed/Lenovo/systems/SE100_RTX2000E_Ada_16GBx1_TRT.json"
	intMeas     = "closed/Intel/measurements/1-node-2S-GNR_128C/llama3_1-8b/Offline/"
	intRes      = "closed/Intel/results/1-node-2S-GNR_128C/"
	krai        = "open/Krai/results/b200_x8/llama3_1-70b-fp8_trtllm/"
	perfLogPath = "performance/run_1/mlperf_log_detail.txt"
)

func rm(t *testing.T, root, rel string) { require.NoError(t, os.RemoveAll(filepath.Join(root, rel))) }

func mv(t *testing.T, root, from, to string) {
	require.NoError(t, os.Rename(filepath.Join(root, from), filepath.Join(root, to)))
}

func cp(t *testing.T, root, from, to string) {
	require.NoError(t, CopyFile(filepath.Join(root, from), filepath.Join(root, to)))
}

func replaceIn(t *testing.T, root, rel, old, repl string) {
	t.Helper()
	path := filepath.Join(root, rel)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), old)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), old, repl, 1)), 0o644))
}

func brokenCases() []brokenCase {
	const nvTree, lenTree, intTree, kraiTree = "nvidia-b200-llm", "lenovo-se100-edge", "intel-gnr-cpu", "krai-open-model-mapping"
	nv := func(sc ...string) []string {
		var out []string
		for _, s := range sc {
			out = append(out, nvRes+s)
		}
		return out
	}
	len5 := []string{lenRes + "3d-unet-99/Offline", lenRes + "3d-unet-99/SingleStream", lenRes + "resnet50/MultiStream",
		lenRes + "resnet50/Offline", lenRes + "resnet50/SingleStream"}
	out := []brokenCase{
		{name: "interactive over server's TTFT", tree: nvTree, refused: nv("Interactive"), want: "(llm_check)", warns: true,
			breaks: func(t *testing.T, root string) {
				setKey(t, filepath.Join(root, nvRes+"Interactive", perfLogPath), "result_first_token_99.00_percentile_latency_ns", "2500000000")
			}},
		{name: "interactive over its own TTFT only", tree: nvTree, want: "not under Interactive's 450000000", warns: true,
			breaks: func(t *testing.T, root string) {
				setKey(t, filepath.Join(root, nvRes+"Interactive", perfLogPath), "result_first_token_99.00_percentile_latency_ns", "1000000000")
			}},
		{name: "interactive holding an offline run", tree: nvTree, refused: nv("Interactive"), want: "results are inferred only for edge systems",
			breaks: func(t *testing.T, root string) {
				cp(t, root, nvRes+"Offline/"+perfLogPath, nvRes+"Interactive/"+perfLogPath)
			}},
		{name: "neither server nor interactive", tree: nvTree, refused: nv("Offline"), want: "must submit one of Interactive or Server (check_scenarios)",
			breaks: func(t *testing.T, root string) {
				rm(t, root, nvRes+"Server")
				rm(t, root, nvRes+"Interactive")
			}},
		{name: "TEST06 failed", tree: nvTree, refused: nv("Server"), want: "TEST06 did not pass",
			breaks: func(t *testing.T, root string) {
				replaceIn(t, root, nvComp+"Server/TEST06/verify_accuracy.txt", "EOS check pass: True", "EOS check pass: False")
			}},
		{name: "ROUGE below the target", tree: nvTree, refused: nv("Offline"), want: "ROUGE1 40.7347 is below the target",
			breaks: func(t *testing.T, root string) {
				replaceIn(t, root, nvRes+"Offline/accuracy/accuracy.txt", "'rouge1': 44.7347", "'rouge1': 40.7347")
			}},
		{name: "accuracy log not truncated", tree: nvTree, refused: nv("Offline"), want: "not truncated",
			breaks: func(t *testing.T, root string) {
				require.NoError(t, os.WriteFile(filepath.Join(root, nvRes+"Offline/accuracy/mlperf_log_accuracy.json"), []byte(strings.Repeat(" ", 20000)), 0o644))
			}},
		{name: "no hash", tree: nvTree, refused: nv("Offline"), want: "no hash= line",
			breaks: func(t *testing.T, root string) {
				replaceIn(t, root, nvRes+"Offline/accuracy/accuracy.txt", "hash=", "sha=")
			}},
		{name: "no measurements description", tree: nvTree, refused: nv("Server"), want: "(MeasurementsCheck.missing_check)",
			breaks: func(t *testing.T, root string) { rm(t, root, nvMeas+"Server/B200-SXM-180GBx8_TRT_Server.json") }},
		{name: "a seed not the round's", tree: nvTree, refused: nv("Offline"), want: "effective_qsl_rng_seed is 1: round v5.1's seed",
			breaks: func(t *testing.T, root string) {
				setKey(t, filepath.Join(root, nvRes+"Offline", perfLogPath), "effective_qsl_rng_seed", "1")
			}},
		{name: "token latencies off", tree: nvTree, refused: nv("Server"), want: "use_token_latencies must be on",
			breaks: func(t *testing.T, root string) {
				setKey(t, filepath.Join(root, nvRes+"Server", perfLogPath), "requested_use_token_latencies", "false")
			}},
		{name: "lower-case scenario directories", tree: nvTree,
			breaks: func(t *testing.T, root string) {
				for _, d := range []string{nvRes, nvComp, nvMeas} {
					mv(t, root, d+"Offline", d+"offline")
				}
			}},
		{name: "multistream inferred from singlestream", tree: lenTree,
			breaks: func(t *testing.T, root string) {
				cp(t, root, lenRes+"resnet50/SingleStream/"+perfLogPath, lenRes+"resnet50/MultiStream/"+perfLogPath)
			}},
		{name: "offline inferred from singlestream", tree: lenTree,
			breaks: func(t *testing.T, root string) {
				cp(t, root, lenRes+"3d-unet-99/SingleStream/"+perfLogPath, lenRes+"3d-unet-99/Offline/"+perfLogPath)
			}},
		{name: "too short", tree: lenTree, refused: []string{lenRes + "3d-unet-99/SingleStream"}, want: "(min_duration_check)",
			breaks: func(t *testing.T, root string) {
				setKey(t, filepath.Join(root, lenRes+"3d-unet-99/SingleStream", perfLogPath), "effective_min_duration_ms", "1000")
			}},
		{name: "early stopping not met", tree: lenTree, refused: []string{lenRes + "resnet50/SingleStream"}, want: "early stopping condition not met",
			breaks: func(t *testing.T, root string) {
				setKey(t, filepath.Join(root, lenRes+"resnet50/SingleStream", perfLogPath), "early_stopping_met", "false")
			}},
		{name: "TEST04 failed", tree: lenTree, refused: []string{lenRes + "resnet50/Offline"}, want: "TEST04 performance verification did not pass",
			breaks: func(t *testing.T, root string) {
				replaceIn(t, root, lenComp+"resnet50/Offline/TEST04/verify_performance.txt", "TEST PASS", "TEST FAIL")
			}},
		{name: "extra file in a TEST01 run", tree: lenTree, refused: []string{lenRes + "resnet50/SingleStream"}, want: "by +notes.txt",
			breaks: func(t *testing.T, root string) {
				require.NoError(t, os.WriteFile(filepath.Join(root, lenComp+"resnet50/SingleStream/TEST01/performance/run_1/notes.txt"), []byte("x\n"), 0o644))
			}},
		{name: "status not an availability", tree: lenTree, refused: len5, want: "(availability_check)",
			breaks: func(t *testing.T, root string) { replaceIn(t, root, lenSys, `"available"`, `"sold out"`) }},
		{name: "performance log in the accuracy directory", tree: lenTree, want: `effective_test_mode is "PerformanceOnly"`, warns: true,
			breaks: func(t *testing.T, root string) {
				setKey(t, filepath.Join(root, lenRes+"resnet50/Offline/accuracy/mlperf_log_detail.txt"), "effective_test_mode", `"PerformanceOnly"`)
			}},
		{name: "measurements named otherwise", tree: intTree, refused: []string{intRes + "llama3_1-8b/Offline"}, want: "no measurements description",
			breaks: func(t *testing.T, root string) { mv(t, root, intMeas+"1-node-2S-GNR_128C.json", intMeas+"notes.json") }},
		{name: "no model mapping", tree: kraiTree, refused: []string{krai + "offline", krai + "server"}, want: "names no model of round v5.1",
			breaks: func(t *testing.T, root string) { rm(t, root, "open/Krai/model_mapping.json") }},
		{name: "open accuracy below the target", tree: kraiTree,
			breaks: func(t *testing.T, root string) {
				replaceIn(t, root, krai+"offline/accuracy/accuracy.txt", "'rouge1': 47.6972", "'rouge1': 7.6972")
			}},
		{name: "open accuracy without its hash", tree: kraiTree, want: "no hash= line", warns: true,
			breaks: func(t *testing.T, root string) {
				replaceIn(t, root, krai+"offline/accuracy/accuracy.txt", "hash=", "sha=")
			}},
	}
	// The PTD sessions of powerCases on Lenovo's resnet50 Offline result.
	for _, pc := range powerCases() {
		c := brokenCase{name: "power " + pc.name, tree: lenTree, want: pc.want, breaks: func(t *testing.T, root string) {
			perf := filepath.Join(root, lenRes+"resnet50/Offline/performance")
			addPower(t, perf, pc.session)
			if pc.after != nil {
				pc.after(t, perf)
			}
		}}
		if pc.want != "" {
			c.refused = []string{lenRes + "resnet50/Offline"}
		}
		out = append(out, c)
	}
	return out
}

var brokenOut = flag.String("broken-out", "", "write each broken published tree into `DIR`/CASE, for the official checker")

// TestCheckRealSubmissionsBroken breaks copies of the published trees.
// Each case's verdicts are the official checker's on the same tree
// (mlcommons/inference b66003e1; `make sweep-broken` runs it on them):
// refused, or accepted where mlperf-host only warns.
func TestCheckRealSubmissionsBroken(t *testing.T) {
	t.Parallel()
	for _, tt := range brokenCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := copyTree(t, realTree(t, tt.tree))
			tt.breaks(t, root)
			if *brokenOut != "" {
				dst := filepath.Join(*brokenOut, strings.ReplaceAll(tt.name, " ", "-"))
				require.NoError(t, os.RemoveAll(dst))
				require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
				require.NoError(t, os.Rename(root, dst))
				root = dst
			}
			rep := Check(root, v51)
			var got []string
			for _, res := range rep.Results {
				if len(rep.Refusals(res.Path, false)) > 0 {
					got = append(got, res.Path)
				}
			}
			assert.Equal(t, tt.refused, got, "%v", rep.Problems)
			if tt.want != "" {
				var all []string
				for _, p := range rep.Problems {
					all = append(all, p.String())
				}
				assert.Contains(t, strings.Join(all, "\n"), tt.want)
			}
			assert.Equal(t, tt.warns, len(rep.Warnings()) > 0, "%v", rep.Warnings())
		})
	}
}
