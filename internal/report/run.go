package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	// Accuracy is the accuracy.txt line, when there is one.
	Accuracy string
}

// Load reads the run whose logs are in dir: the detail log (required),
// the trace and accuracy.txt when they are there. The run is named after
// dir's base name.
//
// # Errors
//
// Naming the file: a missing or malformed detail log, a malformed trace
// (wrapping [ErrTrace]), an unreadable accuracy.txt.
func Load(dir string) (*Run, error) {
	r := &Run{Name: filepath.Base(filepath.Clean(dir))}
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
	if tf, err := os.Open(path); err == nil {
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

// Scenario is the run's effective scenario.
func (r *Run) Scenario() string { return r.str("effective_scenario") }

// Mode is the run's effective test mode: PerformanceOnly, AccuracyOnly.
func (r *Run) Mode() string { return r.str("effective_test_mode") }

// Plugin is the system under test as the LoadGen logged it (sut_name):
// mlperf-host logs the plugin's name.
func (r *Run) Plugin() string { return r.str("sut_name") }

// Benchmark is the benchmark the run measured, read from the query sample
// library's name: mlperf-host logs qsl_name as "BENCHMARK (DATA SET)";
// older runs of the bundled data set logged "builtin:NAME". "" when the
// log does not say (a log of another harness).
func (r *Run) Benchmark() string {
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

// Title names the benchmark, the scenario, the plugin and the run:
// "fashion-mnist Offline on onnx (performance)".
func (r *Run) Title() string {
	var parts []string
	for _, p := range []string{r.Benchmark(), r.Scenario()} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if p := r.Plugin(); p != "" {
		parts = append(parts, "on "+p)
	}
	if len(parts) == 0 {
		return r.Name
	}
	return strings.Join(parts, " ") + " (" + r.Name + ")"
}

// UniqueNames names each run after the last element of its directory
// and, where two runs would share a name, after the shortest trailing part
// of their paths that tells them apart ("a/performance",
// "b/performance"); never after a whole absolute path. dirs are the runs'
// directories in the order of runs.
func UniqueNames(runs []*Run, dirs []string) {
	parts := make([][]string, len(dirs))
	depth := make([]int, len(dirs))
	for i, d := range dirs {
		parts[i] = strings.Split(strings.Trim(filepath.ToSlash(filepath.Clean(d)), "/"), "/")
		depth[i] = 1
	}
	for {
		seen := map[string][]int{}
		for i, p := range parts {
			runs[i].Name = strings.Join(p[max(0, len(p)-depth[i]):], "/")
			seen[runs[i].Name] = append(seen[runs[i].Name], i)
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
			return
		}
	}
}
