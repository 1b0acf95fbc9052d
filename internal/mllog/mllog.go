package mllog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every error about a malformed record.
var ErrMalformed = errors.New("malformed detail log")

// Prefix starts every record line.
const Prefix = ":::MLLOG "

// Record is one ":::MLLOG" line.
type Record struct {
	Key string `json:"key"`
	// Value is the record's raw JSON value.
	Value     json.RawMessage `json:"value"`
	TimeMS    float64         `json:"time_ms"`
	Namespace string          `json:"namespace"`
	EventType string          `json:"event_type"`
	Metadata  struct {
		IsError   bool   `json:"is_error"`
		IsWarning bool   `json:"is_warning"`
		File      string `json:"file"`
		LineNo    int    `json:"line_no"`
	} `json:"metadata"`
	// Line is the record's line number in the file.
	Line int `json:"-"`
}

// Log is a parsed detail log.
type Log struct {
	Records []Record
	last    map[string]int
}

// maxLine bounds one record line (the official writes some long ones:
// git logs and file hashes).
const maxLine = 16 << 20

// Parse reads a detail log. Lines without the prefix are skipped, as the
// official checker skips them.
//
// # Errors
//
// Wraps [ErrMalformed] naming the line for a record that is not a JSON
// object with a string key.
func Parse(r io.Reader) (*Log, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	l := &Log{last: map[string]int{}}
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		i := bytes.Index(line, []byte(Prefix))
		if i < 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line[i+len(Prefix):], &rec); err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrMalformed, n, err)
		}
		if rec.Key == "" {
			return nil, fmt.Errorf("%w: line %d: record without a key", ErrMalformed, n)
		}
		rec.Line = n
		l.last[rec.Key] = len(l.Records)
		l.Records = append(l.Records, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: line %d: %w", ErrMalformed, n+1, err)
	}
	return l, nil
}

// Has reports whether key was logged.
func (l *Log) Has(key string) bool { _, ok := l.last[key]; return ok }

// Raw returns the last value logged under key.
func (l *Log) Raw(key string) (json.RawMessage, bool) {
	i, ok := l.last[key]
	if !ok {
		return nil, false
	}
	return l.Records[i].Value, true
}

// String returns the last value of key as text: a JSON string unquoted,
// anything else as written.
func (l *Log) String(key string) (string, bool) {
	raw, ok := l.Raw(key)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return string(raw), true
}

// Float returns the last value of key as a number (a JSON number, or a
// string holding one).
func (l *Log) Float(key string) (float64, error) {
	s, ok := l.String(key)
	if !ok {
		return 0, fmt.Errorf("detail log has no %s", key)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("detail log %s = %q: %w", key, s, err)
	}
	return f, nil
}

// Errors returns the records flagged as errors.
func (l *Log) Errors() []Record {
	var out []Record
	for _, r := range l.Records {
		if r.Metadata.IsError {
			out = append(out, r)
		}
	}
	return out
}

// Metric is a run's result metric, as the submission checker reads it.
type Metric struct {
	// Key is the detail log key, e.g. "result_samples_per_second".
	Key   string
	Value float64
	// HigherIsBetter: throughput (true) or latency (false).
	HigherIsBetter bool
	// Unit is "samples/s" or "ns".
	Unit string
}

// Metric returns the result metric of the log's effective scenario:
// SingleStream and MultiStream a latency percentile, Server the completed
// samples per second, Offline the samples per second.
func (l *Log) Metric() (Metric, error) {
	sc, ok := l.String("effective_scenario")
	if !ok {
		return Metric{}, errors.New("detail log has no effective_scenario")
	}
	pct := func(key string) (float64, error) {
		p, err := l.Float(key)
		return p * 100, err
	}
	var m Metric
	switch sc {
	case "SingleStream":
		p, err := pct("effective_target_latency_percentile")
		if err != nil {
			return Metric{}, err
		}
		m = Metric{Key: fmt.Sprintf("result_%.2f_percentile_latency_ns", p), Unit: "ns"}
	case "MultiStream":
		p, err := pct("effective_target_latency_percentile")
		if err != nil {
			return Metric{}, err
		}
		m = Metric{Key: fmt.Sprintf("result_%.2f_percentile_per_query_latency_ns", p), Unit: "ns"}
	case "Server":
		m = Metric{Key: "result_completed_samples_per_sec", HigherIsBetter: true, Unit: "samples/s"}
	case "Offline":
		m = Metric{Key: "result_samples_per_second", HigherIsBetter: true, Unit: "samples/s"}
	default:
		return Metric{}, fmt.Errorf("detail log: unknown effective_scenario %q", sc)
	}
	v, err := l.Float(m.Key)
	if err != nil {
		return Metric{}, err
	}
	m.Value = v
	return m, nil
}
