package submission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// detailLog is a parsed detail log read as the official tools read it:
// the first record of a key is its value.
type detailLog struct {
	path  string
	log   *mllog.Log
	first map[string]json.RawMessage
}

// readDetail parses dir/mlperf_log_detail.txt.
func readDetail(dir string) (*detailLog, error) {
	path := filepath.Join(dir, DetailFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := mllog.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &detailLog{path: path, log: l, first: map[string]json.RawMessage{}}
	for _, r := range l.Records {
		if _, ok := d.first[r.Key]; !ok {
			d.first[r.Key] = r.Value
		}
	}
	return d, nil
}

// ReadDetail parses the detail log in dir.
func ReadDetail(dir string) (*mllog.Log, error) {
	d, err := readDetail(dir)
	if err != nil {
		return nil, err
	}
	return d.log, nil
}

func (d *detailLog) has(key string) bool { _, ok := d.first[key]; return ok }

// str returns a string value unquoted, anything else as written.
func (d *detailLog) str(key string) string {
	raw, ok := d.first[key]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// num returns a numeric value (a JSON number, or a string holding one).
func (d *detailLog) num(key string) (float64, bool) {
	if !d.has(key) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(d.str(key)), 64)
	return f, err == nil
}

// number returns a value that is a JSON number, as the checker compares
// them: a string holding a number is not one.
func (d *detailLog) number(key string) (float64, bool) {
	raw, ok := d.first[key]
	if !ok {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	return f, true
}

// raw returns a value's JSON text, "None" when absent.
func (d *detailLog) raw(key string) string {
	raw, ok := d.first[key]
	if !ok {
		return "None"
	}
	return strings.TrimSpace(string(raw))
}

// truthy is Python's truth of the value: false, 0, "", null and absent are
// false.
func (d *detailLog) truthy(key string) bool {
	raw, ok := d.first[key]
	if !ok {
		return false
	}
	switch s := strings.TrimSpace(string(raw)); s {
	case "false", "0", `""`, "null", "[]", "{}", "0.0":
		return false
	}
	return true
}

// errors returns the values of the records flagged as errors.
func (d *detailLog) errors() []string {
	var out []string
	for _, r := range d.log.Errors() {
		var s string
		if json.Unmarshal(r.Value, &s) != nil {
			s = string(r.Value)
		}
		out = append(out, r.Key+": "+s)
	}
	return out
}
