package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// The files of a run directory the report reads.
const (
	DetailFile   = "mlperf_log_detail.txt"
	TraceFile    = "mlperf_log_trace.json"
	AccuracyFile = "accuracy.txt"
)

// Run is one run as the report shows it.
type Run struct {
	// Name tells the run apart on the page: its directory's base name,
	// never a path of the machine that made it.
	Name string
	// Detail is the run's detail log.
	Detail *mllog.Log
	// Samples are the traced samples; nil when the run was not traced.
	Samples []Sample
	// Accuracy is accuracy.txt, when there is one.
	Accuracy string
	// Where is what the run's directory tells in a submission tree.
	Where Where
	// Round is the round whose rules the page reads (the result metric,
	// token latency limits, the accuracy metrics); Bench the run's
	// benchmark in it, nil when the run names none the round knows.
	Round *benchmarks.Round
	Bench *benchmarks.Benchmark
}

// Load reads the run whose logs are in dir: the detail log (required),
// the trace (an empty file is none: the official LoadGen leaves it empty
// when tracing is off) and accuracy.txt when they are there. The run is
// named after dir's base name, its benchmark read from the path in a
// submission tree (DIVISION/SUBMITTER/results/SYSTEM/BENCHMARK/SCENARIO)
// or from the log, under round's rules (nil: the newest round that has
// the benchmark).
//
// # Errors
//
// Naming the file: a missing or malformed detail log, a malformed trace
// (wrapping [ErrTrace]), an unreadable accuracy.txt.
func Load(dir string, round *benchmarks.Round) (*Run, error) {
	r := &Run{Name: filepath.Base(filepath.Clean(dir)), Where: whereOf(dir)}
	path := filepath.Join(dir, DetailFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	r.Detail, err = mllog.Parse(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	path = filepath.Join(dir, TraceFile)
	if st, err := os.Stat(path); err == nil && st.Size() == 0 {
		// The official LoadGen always creates the trace; untraced, it stays empty.
	} else if tf, err := os.Open(path); err == nil {
		r.Samples, err = ReadTrace(tf)
		tf.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("trace: %w", err)
	}
	path = filepath.Join(dir, AccuracyFile)
	if b, err := os.ReadFile(path); err == nil {
		r.Accuracy = strings.TrimSpace(string(b))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("accuracy: %w", err)
	}
	r.resolve(round)
	return r, nil
}

// str returns a detail-log value as text, "" when absent.
func (r *Run) str(key string) string {
	if r.Detail == nil {
		return ""
	}
	s, _ := r.Detail.String(key)
	return strings.TrimSpace(s)
}

// num returns a detail-log number and whether the log has it.
func (r *Run) num(key string) (float64, bool) {
	if r.Detail == nil || !r.Detail.Has(key) {
		return 0, false
	}
	v, err := r.Detail.Float(key)
	return v, err == nil
}

// Scenario is the run's scenario: its directory's in a submission tree
// (an Interactive directory holds a Server run), else the log's, read as
// Interactive where a Server run was made under its benchmark's
// Interactive rules (see interactiveRules).
func (r *Run) Scenario() string {
	for _, sc := range benchmarks.RunScenarios() {
		if strings.EqualFold(r.Where.Scenario, string(sc)) {
			return string(sc)
		}
	}
	if r.interactiveRules() {
		return string(benchmarks.Interactive)
	}
	return r.effective()
}

// interactiveBounds are the mlperf.conf settings that set an Interactive
// run apart from a Server run of the same benchmark, with the detail log
// keys that record them (in ns; the settings are in ms).
var interactiveBounds = [][2]string{
	{"ttft_latency", "requested_server_ttft_latency"},
	{"tpot_latency", "requested_server_tpot_latency"},
	{"target_latency", "requested_server_target_latency_ns"},
}

// interactiveRules reports whether the log is of a Server run made under
// its benchmark's Interactive rules: every bound in which the round's
// Interactive settings differ from its Server settings (TTFT and TPOT for
// the LLMs, the latency bound for qwen3-vl) logged at its Interactive
// value. A log outside a tree says no more: LoadGen logs Interactive as
// Server.
func (r *Run) interactiveRules() bool {
	if r.effective() != string(benchmarks.Server) || r.Bench == nil || !r.Bench.HasInteractive() {
		return false
	}
	values := func(sc benchmarks.Scenario) map[string]string {
		m := map[string]string{}
		for _, s := range r.Bench.Settings[sc] {
			m[s.Key] = s.Value
		}
		return m
	}
	inter, server := values(benchmarks.Interactive), values(benchmarks.Server)
	differs := false
	for _, b := range interactiveBounds {
		if inter[b[0]] == server[b[0]] {
			continue
		}
		differs = true
		ms, err := strconv.ParseFloat(inter[b[0]], 64)
		got, ok := r.num(b[1])
		if err != nil || !ok || got != ms*1e6 {
			return false
		}
	}
	return differs
}

// effective is the scenario the LoadGen ran: effective_scenario.
func (r *Run) effective() string { return r.str("effective_scenario") }

// Mode is the run's effective test mode: PerformanceOnly, AccuracyOnly.
func (r *Run) Mode() string { return r.str("effective_test_mode") }

// Plugin is the system under test as the LoadGen logged it (sut_name):
// mlperf-host logs the plugin's name.
func (r *Run) Plugin() string { return r.str("sut_name") }

// Benchmark is the benchmark the run measured: its tree directory's name
// ("resnet50", as the submitter named it), else the round's name of the
// one its log names, else what the log says (logBenchmark); "" when
// nothing says.
func (r *Run) Benchmark() string {
	switch {
	case r.Where.Benchmark != "":
		return r.Where.Benchmark
	case r.Bench != nil:
		return r.Bench.SubmissionName
	}
	return r.logBenchmark()
}

// System is the system under test: the tree's system directory, else the
// plugin (sut_name).
func (r *Run) System() string {
	if r.Where.System != "" {
		return r.Where.System
	}
	return r.Plugin()
}

// logBenchmark is the benchmark the run's log names, read from the query
// sample library's name: mlperf-host logs qsl_name as "BENCHMARK (DATA
// SET)"; older runs of the bundled data set logged "builtin:NAME". ""
// when the log does not say (a log of another harness).
func (r *Run) logBenchmark() string {
	q := r.str("qsl_name")
	if name, rest, ok := strings.Cut(q, " ("); ok && strings.HasSuffix(rest, ")") && !strings.ContainsAny(name, " /\\") {
		return name
	}
	if name, ok := strings.CutPrefix(q, "builtin:"); ok {
		return name
	}
	return ""
}

// Validity is result_validity: VALID or INVALID; "" for a run without
// performance results (an accuracy run).
func (r *Run) Validity() string { return r.str("result_validity") }

// HasPerformance reports whether the run has performance results.
func (r *Run) HasPerformance() bool { return r.Validity() != "" }

// Title names the benchmark, the scenario, the system and the run:
// "fashion-mnist Offline on onnx (performance)", "llama2-70b-99
// Interactive on B200-SXM-180GBx8_TRT (accuracy)".
func (r *Run) Title() string {
	var parts []string
	for _, p := range []string{r.Benchmark(), r.Scenario()} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if p := r.System(); p != "" {
		parts = append(parts, "on "+p)
	}
	what := r.Name
	if p := r.Where.part(); p != "" {
		what = p
	}
	if len(parts) == 0 {
		return what
	}
	return strings.Join(parts, " ") + " (" + what + ")"
}

// maxName is the longest name a run gets in a comparison, in
// characters: what a chart's label column and a table's header hold.
const maxName = 24

// UniqueNames names runs for a comparison, short and distinct. Runs in
// submission trees are named after what tells them apart: their
// submitter, else their system, benchmark, scenario or part of the
// scenario's directory (performance, TEST01), else all of those that
// differ. Other runs are named after the last element of their directory
// and, where two runs would share a name, after the shortest trailing
// part of their paths that tells them apart ("a/performance",
// "b/performance"); never after a whole absolute path. A name longer than
// 24 characters is cut in the middle where the cut ones stay distinct.
// dirs are the runs' directories in the order of runs.
func UniqueNames(runs []*Run, dirs []string) {
	var names []string
	if len(runs) > 1 {
		names = treeNames(runs)
	}
	if names == nil {
		names = pathNames(dirs)
	}
	short := make([]string, len(names))
	for i, n := range names {
		short[i] = shorten(n, maxName)
	}
	if distinct(short) {
		names = short
	}
	for i := range runs {
		runs[i].Name = names[i]
	}
}

// treeNames names runs in submission trees after what tells them apart;
// nil when a run is not in a tree.
func treeNames(runs []*Run) []string {
	fields := func(r *Run) []string {
		w := r.Where
		return []string{w.Submitter, w.System, r.Benchmark(), r.Scenario(), w.part()}
	}
	for _, r := range runs {
		if r.Where.Division == "" {
			return nil
		}
	}
	column := func(f int) []string {
		var out []string
		for _, r := range runs {
			out = append(out, fields(r)[f])
		}
		return out
	}
	for f := range 5 {
		if c := column(f); distinct(c) {
			return c
		}
	}
	names := make([]string, len(runs))
	for f := range 5 {
		c := column(f)
		if distinct(c) || slices.ContainsFunc(c, func(v string) bool { return v != c[0] }) {
			for i := range names {
				names[i] = strings.TrimSpace(names[i] + " " + c[i])
			}
		}
	}
	if !distinct(names) {
		for i := range names {
			names[i] += fmt.Sprintf(" #%d", i+1)
		}
	}
	return names
}

// pathNames names directories after their last element, longer where two
// would look alike.
func pathNames(dirs []string) []string {
	parts := make([][]string, len(dirs))
	depth := make([]int, len(dirs))
	for i, d := range dirs {
		parts[i] = strings.Split(strings.Trim(filepath.ToSlash(filepath.Clean(d)), "/"), "/")
		depth[i] = 1
	}
	names := make([]string, len(dirs))
	for {
		seen := map[string][]int{}
		for i, p := range parts {
			names[i] = strings.Join(p[max(0, len(p)-depth[i]):], "/")
			seen[names[i]] = append(seen[names[i]], i)
		}
		grew := false
		for _, same := range seen {
			if len(same) < 2 {
				continue
			}
			for _, i := range same {
				if depth[i] < len(parts[i]) {
					depth[i]++
					grew = true
				}
			}
		}
		if !grew {
			return names
		}
	}
}

func distinct(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

// shorten cuts s to n characters, an ellipsis in its middle.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}
