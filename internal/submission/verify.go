package submission

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Pass and Fail are how the official scripts end a verdict.
const (
	Pass = "TEST PASS"
	Fail = "TEST FAIL"
)

// Verdict is a compliance verification: the text of its verify_*.txt and
// whether it passed.
type Verdict struct {
	Text string
	Pass bool
}

// WriteVerdict writes v to dir/name.
func WriteVerdict(dir, name string, v Verdict) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(v.Text), 0o644)
}

// DType is how the official verification scripts read a response's
// bytes (numpy's frombuffer).
type DType string

// The data types of compliance/TEST01/verify_accuracy.py (byte, its
// default, float32, int32, int64) and TEST06 (int16 too).
const (
	Byte    DType = "byte"
	Int16   DType = "int16"
	Int32   DType = "int32"
	Int64   DType = "int64"
	Float32 DType = "float32"
)

// size is one element's bytes.
func (t DType) size() int {
	switch t {
	case Int16:
		return 2
	case Int32, Float32:
		return 4
	case Int64:
		return 8
	}
	return 1
}

// elements splits b into t's elements as numpy's frombuffer does: an
// error when b is not a whole number of them.
func (t DType) elements(b []byte) ([]element, error) {
	n := t.size()
	if len(b)%n != 0 {
		return nil, fmt.Errorf("buffer size %d must be a multiple of element size %d", len(b), n)
	}
	out := make([]element, 0, len(b)/n)
	for i := 0; i < len(b); i += n {
		var e element
		switch t {
		case Byte:
			e.i = int64(int8(b[i]))
		case Int16:
			e.i = int64(int16(binary.LittleEndian.Uint16(b[i:])))
		case Int32:
			e.i = int64(int32(binary.LittleEndian.Uint32(b[i:])))
		case Int64:
			e.i = int64(binary.LittleEndian.Uint64(b[i:]))
		case Float32:
			e.f, e.isF = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))), true
		}
		out = append(out, e)
	}
	return out, nil
}

// element is one value; floats compare as IEEE numbers (NaN differs from
// everything).
type element struct {
	i   int64
	f   float64
	isF bool
}

func (e element) equal(o element) bool {
	if e.isF || o.isF {
		return e.f == o.f
	}
	return e.i == o.i
}

func (e element) equalInt(v int64) bool {
	if e.isF {
		return e.f == float64(v)
	}
	return e.i == v
}

// logEntry is one accuracy log entry with its fields as written.
type logEntry struct {
	QSLIdx     uint64 `json:"qsl_idx"`
	Data       string `json:"data"`
	TokenData  string `json:"token_data"`
	TokenCount *int64 `json:"token_count"`
}

// readEntries decodes an accuracy log.
func readEntries(r io.Reader) ([]logEntry, error) {
	var out []logEntry
	if err := json.NewDecoder(bufio.NewReader(r)).Decode(&out); err != nil {
		return nil, fmt.Errorf("accuracy log: %w", err)
	}
	return out, nil
}

func decodeHex(s string, t DType) ([]element, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, err
	}
	return t.elements(b)
}

// VerifyTEST01Accuracy is compliance/TEST01/verify_accuracy.py: each
// response logged in performance mode must agree with the accuracy run's
// response to the same sample in its first element of type t (and with
// an earlier performance-mode response to it: the script compares with
// the last one it read). It passes when nothing differs and at least one
// sample matched. The text is the script's output.
//
// # Errors
//
// A log that is not JSON, data that is not hex, or a response not a whole
// number of elements: the script fails on those too.
func VerifyTEST01Accuracy(accuracyLog, complianceLog io.Reader, t DType) (Verdict, error) {
	acc, err := readEntries(accuracyLog)
	if err != nil {
		return Verdict{}, err
	}
	perf, err := readEntries(complianceLog)
	if err != nil {
		return Verdict{}, err
	}
	results := map[uint64]string{}
	var dupKeys, accMismatch, match, perfMismatch, missing int
	for _, e := range acc {
		if old, ok := results[e.QSLIdx]; ok {
			dupKeys++
			if old != e.Data {
				accMismatch++
			}
		} else {
			results[e.QSLIdx] = e.Data
		}
	}
	for _, e := range perf {
		data, err := decodeHex(e.Data, t)
		if err != nil {
			return Verdict{}, fmt.Errorf("compliance log qsl_idx %d: %w", e.QSLIdx, err)
		}
		if old, ok := results[e.QSLIdx]; ok {
			match++
			ref, err := decodeHex(old, t)
			if err != nil {
				return Verdict{}, fmt.Errorf("accuracy log qsl_idx %d: %w", e.QSLIdx, err)
			}
			switch {
			case len(ref) == 0 || len(data) == 0:
				if len(ref) != len(data) {
					perfMismatch++
				}
			case !data[0].equal(ref[0]):
				perfMismatch++
			}
		} else {
			missing++
		}
		results[e.QSLIdx] = e.Data
	}
	var b strings.Builder
	b.WriteString("Verifying accuracy. This might take a while...\nReading accuracy mode results...\nReading performance mode results...\n")
	for _, kv := range []struct {
		k string
		v int
	}{
		{"num_acc_log_entries", len(acc)}, {"num_acc_log_duplicate_keys", dupKeys}, {"num_acc_log_data_mismatch", accMismatch},
		{"num_perf_log_entries", len(perf)}, {"num_perf_log_qsl_idx_match", match},
		{"num_perf_log_data_mismatch", perfMismatch}, {"num_missing_qsl_idxs", missing},
	} {
		fmt.Fprintf(&b, "%s = %d\n", kv.k, kv.v)
	}
	v := Verdict{Pass: perfMismatch == 0 && match > 0}
	if v.Pass {
		b.WriteString(Pass + "\n\n")
	} else {
		b.WriteString(Fail + "\n\n")
	}
	v.Text = b.String()
	return v, nil
}

// resultField is compliance/TEST01/verify_performance.py's metric per
// scenario.
var resultField = map[string]string{
	"Offline": "result_samples_per_second", "SingleStream": "early_stopping_latency_ss",
	"MultiStream": "early_stopping_latency_ms", "Server": "result_completed_samples_per_sec",
}

// VerifyTEST01Performance is compliance/TEST01/verify_performance.py on
// the detail logs of the performance run (refDir) and the TEST01 run
// (testDir): both VALID and free of errors, the same scenario (and Server
// target latency), and the test's metric within ±10% of the reference's
// (±20% for SingleStream at or under 0.2 ms, MultiStream at or under 1.6
// ms). SingleStream and MultiStream compare the early-stopping latency
// estimates.
func VerifyTEST01Performance(refDir, testDir string) (Verdict, error) {
	ref, err := readDetail(refDir)
	if err != nil {
		return Verdict{}, err
	}
	test, err := readDetail(testDir)
	if err != nil {
		return Verdict{}, err
	}
	var b strings.Builder
	b.WriteString("Verifying performance.\n")
	fail := func(msg string) (Verdict, error) {
		b.WriteString(msg + "\n")
		return Verdict{Text: b.String()}, nil
	}
	type parsed struct {
		scenario string
		score    float64
		latency  string
	}
	parse := func(d *detailLog) (parsed, string) {
		p := parsed{scenario: d.str("effective_scenario")}
		f, ok := d.num(resultField[p.scenario])
		if !ok {
			return p, fmt.Sprintf("TEST FAIL: no %s in %s", resultField[p.scenario], d.path)
		}
		p.score = f
		if d.str("result_validity") != "VALID" {
			return p, "TEST FAIL: Invalid results in " + d.path
		}
		if len(d.errors()) > 0 {
			// The script means to warn here but stops on a NameError.
			return p, fmt.Sprintf("TEST FAIL: %s has LoadGen errors (the official script stops on them)", d.path)
		}
		if p.scenario == "Server" {
			p.latency = d.str("effective_target_latency_ns")
		}
		return p, ""
	}
	r, msg := parse(ref)
	if msg != "" {
		return fail(msg)
	}
	t, msg := parse(test)
	if msg != "" {
		return fail(msg)
	}
	if t.scenario != r.scenario {
		return fail("TEST FAIL: Test and reference scenarios do not match!")
	}
	if r.scenario == "Server" && t.latency != r.latency {
		return fail("TEST FAIL: Server target latency mismatch")
	}
	fmt.Fprintf(&b, "Reference score = %s\nTest score = %s\n", pyFloat(r.score), pyFloat(t.score))
	threshold := 0.10
	if (r.scenario == "SingleStream" && r.score <= 200000) || (r.scenario == "MultiStream" && r.score <= 1600000) {
		threshold = 0.20
	}
	if r.score*(1-threshold) <= t.score && t.score <= r.score*(1+threshold) {
		b.WriteString(Pass + "\n")
		return Verdict{Text: b.String(), Pass: true}, nil
	}
	return fail("TEST FAIL: Test score invalid")
}

// summaryScore is what compliance/TEST04/verify_performance.py reads of a
// summary log.
type summaryScore struct {
	mode  string
	score string // as written, or a Python float for the latency scenarios
	value float64
}

var (
	ssEstimate = regexp.MustCompile(`^.*Early stopping (90th|90.0th|99.9th) percentile estimate`)
	msEstimate = regexp.MustCompile(`^.*Early stopping (99th|99.0th) percentile estimate`)
	errorCount = regexp.MustCompile(`^\d+ ERROR`)
)

// readSummary reads a summary log line by line as the script does,
// writing its warnings to out; it stops at "Result is : INVALID" and
// reports it.
func readSummary(r io.Reader, out *strings.Builder, which string) (summaryScore, bool, error) {
	var s summaryScore
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	after := func(line string) string {
		_, v, _ := strings.Cut(line, ": ")
		return strings.TrimSpace(v)
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Scenario") {
			s.mode = after(line)
			continue
		}
		switch {
		case s.mode == "SingleStream" && ssEstimate.MatchString(line), s.mode == "MultiStream" && msEstimate.MatchString(line):
			lat, err := strconv.ParseFloat(after(line), 64)
			if err != nil {
				return s, false, fmt.Errorf("summary: %q: %w", line, err)
			}
			s.value = 1e9 / lat
			s.score = pyFloat(s.value)
			continue
		case s.mode == "Server" && strings.HasPrefix(line, "Completed samples per second"),
			s.mode == "Offline" && strings.HasPrefix(line, "Samples per second"):
			s.score = after(line)
			v, err := strconv.ParseFloat(s.score, 64)
			if err != nil {
				return s, false, fmt.Errorf("summary: %q: %w", line, err)
			}
			s.value = v
			continue
		}
		if strings.HasPrefix(line, "Result is") && after(line) == "INVALID" {
			return s, true, nil
		}
		if errorCount.MatchString(line) {
			fmt.Fprintf(out, "WARNING: %s ERROR reported in %s results\n", strings.Fields(line)[0], which)
		}
	}
	return s, false, sc.Err()
}

// VerifyTEST04 is compliance/TEST04/verify_performance.py on the summary
// logs of the performance run and the TEST04 run (one sample index issued
// over and over): the test may not be faster than the reference by 10% or
// more (20% for SingleStream and MultiStream runs slower than 5 µs and
// 0.625 µs a query, which is every real one). Latency scenarios compare
// 1e9 / the early-stopping estimate.
func VerifyTEST04(refSummary, testSummary io.Reader) (Verdict, error) {
	var b strings.Builder
	b.WriteString("Verifying performance.\n")
	ref, invalid, err := readSummary(refSummary, &b, "reference")
	if err != nil {
		return Verdict{}, err
	}
	if invalid {
		b.WriteString("TEST FAIL: Reference results are invalid\n")
		return Verdict{Text: b.String()}, nil
	}
	test, invalid, err := readSummary(testSummary, &b, "test")
	if err != nil {
		return Verdict{}, err
	}
	if invalid {
		b.WriteString("TEST FAIL: Test results are invalid\n")
		return Verdict{Text: b.String()}, nil
	}
	if test.mode != ref.mode {
		b.WriteString("Test and reference scenarios do not match!\n")
		return Verdict{Text: b.String()}, nil
	}
	fmt.Fprintf(&b, "reference score = %s\ntest score = %s\n", orZero(ref.score), orZero(test.score))
	threshold := 0.10
	if (ref.mode == "SingleStream" && ref.value <= 200000) || (ref.mode == "MultiStream" && ref.value <= 1600000) {
		threshold = 0.20
	}
	if test.value < ref.value*(1+threshold) {
		b.WriteString(Pass + "\n")
		return Verdict{Text: b.String(), Pass: true}, nil
	}
	b.WriteString("TEST FAIL: Test score invalid\n")
	return Verdict{Text: b.String()}, nil
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyFloat formats f as Python's repr does: the shortest digits that read
// back as f, in exponent form below 1e-4 and from 1e16.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	_, exp, _ := strings.Cut(e, "e")
	n, _ := strconv.Atoi(exp)
	if n < -4 || n >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
