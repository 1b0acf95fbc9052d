package submission

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// accuracy checks the accuracy directory as the checker's AccuracyCheck
// does; and mlperf-host's own rules: the log an accuracy run's, the
// accuracy log's hash in accuracy.txt in the open division too.
func (c *checker) accuracy(l Layout) {
	dir := l.AccuracyDir()
	if !c.exists(filepath.Join(dir, DetailFile), "accuracy run detail log (the checker stops on this tree)") {
		return
	}
	d, err := readDetail(dir)
	if err != nil {
		c.add(dir, "%v (the checker stops on this tree)", err)
		return
	}
	if m := d.str("effective_test_mode"); m != "AccuracyOnly" {
		c.strict(d.path, "effective_test_mode is %q, want AccuracyOnly (mlperf-host's rule; the checker reads only the log's errors and sample count)", m)
	}
	txt := filepath.Join(dir, AccuracyText)
	if lines, err := readLines(txt); err != nil {
		c.add(txt, "missing accuracy result (accuracy_result_check)")
	} else {
		errs, hash := accuracyProblems(lines, c.round, l)
		for _, p := range errs {
			c.add(txt, "%s", p)
		}
		if !hash && l.Division == "open" {
			c.strict(txt, "no hash= line: the accuracy log was not truncated (mlperf-host's rule; the checker lets the open division through)")
		}
	}
	log := filepath.Join(dir, AccuracyFile)
	if st, err := os.Stat(log); err != nil {
		c.add(log, "missing accuracy log (accuracy_json_check)")
	} else if st.Size() > c.round.MaxAccuracyLogSize {
		c.add(log, "not truncated: %d bytes, the limit is %d (accuracy_json_check)", st.Size(), c.round.MaxAccuracyLogSize)
	}
	for _, e := range d.errors() {
		c.add(d.path, "LoadGen error %s (loadgen_errors_check)", e)
	}
	want := l.Benchmark.AccuracySamples(l.Scenario)
	key := "qsl_reported_total_count"
	if d.has("effective_accuracy_sample_count") {
		key = "effective_accuracy_sample_count"
	}
	if n, ok := d.number(key); !ok || n != float64(want) {
		c.add(d.path, "%s %s: the accuracy run must cover %d samples (dataset_check)", key, d.raw(key), want)
	}
	for sub, names := range l.Benchmark.AccuracyExtraFiles {
		if st, err := os.Stat(filepath.Join(dir, sub)); err != nil || !st.IsDir() {
			c.add(filepath.Join(dir, sub), "missing directory of %s (extra_files_check)", strings.Join(names, ", "))
			continue
		}
		have := map[string]bool{}
		for _, f := range files(filepath.Join(dir, sub)) {
			stem, _, _ := strings.Cut(f, ".")
			have[stem] = true
		}
		var missing []string
		for _, n := range names {
			if !have[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			c.add(filepath.Join(dir, sub), "missing %s.* (extra_files_check)", strings.Join(missing, ".*, "))
		}
	}
}

// accuracyHash matches accuracy.txt's hash line as the checker does.
var accuracyHash = regexp.MustCompile(`^hash=(\w+)$`)

// accuracyProblems reads accuracy.txt's lines as the checker's
// accuracy_result_check: line by line, each target's pattern read at the
// start of the line must give a value at or above the target, none below;
// no upper limit's pattern a value above the limit; and a hash= line must
// be there. The checker stops reading once every target has been seen
// with the hash. The open division is held to none of this (hash
// reports whether the hash line was seen).
func accuracyProblems(lines []string, r *benchmarks.Round, l Layout) (out []string, hash bool) {
	targets := l.Benchmark.TargetsFor(l.Scenario)
	res := make([]*regexp.Regexp, len(targets))
	for i, t := range targets {
		re, err := pattern(r, t.Metric)
		if err != nil {
			return []string{err.Error()}, false
		}
		res[i] = re
	}
	ups := make([]*regexp.Regexp, len(l.Benchmark.Upper))
	for i, u := range l.Benchmark.Upper {
		re, err := pattern(r, u.Metric)
		if err != nil {
			return []string{err.Error()}, false
		}
		ups[i] = re
	}
	seen := make([]bool, len(targets))
	var below, over []string
	for _, line := range lines {
		line = strings.TrimSuffix(line, "\n")
		hash = hash || accuracyHash.MatchString(line)
		for i, t := range targets {
			m := res[i].FindStringSubmatch(line)
			if m == nil {
				continue
			}
			v, err := strconv.ParseFloat(m[1], 64)
			switch {
			case err != nil:
				return append(out, fmt.Sprintf("%s %q is not a number (accuracy_result_check)", t.Metric, m[1])), hash
			case v >= t.Target():
				seen[i] = true
			default:
				below = append(below, fmt.Sprintf("%s %s is below the target %g (accuracy_result_check)", t.Metric, m[1], t.Target()))
			}
		}
		for i, u := range l.Benchmark.Upper {
			if m := ups[i].FindStringSubmatch(line); m != nil {
				v, err := strconv.ParseFloat(m[1], 64)
				switch {
				case err != nil:
					return append(out, fmt.Sprintf("%s %q is not a number (accuracy_result_check)", u.Metric, m[1])), hash
				case v > u.Limit:
					over = append(over, fmt.Sprintf("%s %s is over the upper limit %g (accuracy_result_check)", u.Metric, m[1], u.Limit))
				}
			}
		}
		if hash && !contains(seen, false) {
			break
		}
	}
	if l.Division == "open" {
		return nil, hash
	}
	out = append(out, below...)
	for i, t := range targets {
		if !seen[i] {
			out = append(out, fmt.Sprintf("no %s at or above the target %g (accuracy_result_check)", t.Metric, t.Target()))
		}
	}
	out = append(out, over...)
	if !hash {
		out = append(out, "no hash= line: the accuracy log was not truncated (accuracy_result_check)")
	}
	return out, hash
}

func contains(bs []bool, v bool) bool {
	for _, b := range bs {
		if b == v {
			return true
		}
	}
	return false
}

// pattern compiles the checker's pattern of metric, anchored at the start
// of the line as Python's re.match is.
func pattern(r *benchmarks.Round, metric benchmarks.Metric) (*regexp.Regexp, error) {
	p, ok := r.AccuracyPatterns[metric]
	if !ok {
		return nil, fmt.Errorf("round %s has no pattern for metric %s", r.Name, metric)
	}
	re, err := regexp.Compile(`^(?:` + p + `)`)
	if err != nil {
		return nil, fmt.Errorf("metric %s pattern: %w", metric, err)
	}
	return re, nil
}

// readLines returns a file's lines, each with its "\n".
func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		out = append(out, sc.Text()+"\n")
	}
	return out, sc.Err()
}

// strippedLines returns a file's lines stripped of surrounding
// whitespace, as the checker compares verdict lines; nil when it cannot
// be read.
func strippedLines(path string) []string {
	lines, err := readLines(path)
	if err != nil {
		return nil
	}
	for i, l := range lines {
		lines[i] = pyStrip(l)
	}
	return lines
}
