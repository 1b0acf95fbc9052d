package loadgen

import (
	"encoding/json"
)

// SUTReporter is a SUT with something of its own to write in the logs, as
// an official SUT logs detail entries through the LoadGen's logger (its
// MLPERF_LOG through mlperf::LogDetail): a pool's members' shares and
// latencies, how a network SUT receives its samples. It is optional: a
// SUT that does not implement it leaves the logs exactly as the official
// LoadGen writes them.
type SUTReporter interface {
	SUT
	// SUTStartEntries returns detail entries written when the test
	// starts, right after sut_name.
	SUTStartEntries() []DetailEntry
	// SUTPerformanceReport returns what the SUT says of a performance
	// pass, asked once the pass's results are in the logs: its detail
	// entries follow them, its summary section ends the summary's body.
	SUTPerformanceReport() SUTReport
}

// DetailEntry is one detail log entry of a SUT: Value is a string, a
// bool, an integer, a float64, or anything encoding/json encodes (an
// object for several fields).
type DetailEntry struct {
	Key   string
	Value any
}

// SUTReport is a SUT's section of the summary and its detail entries.
// A report with no Title and no Lines adds nothing to the summary.
type SUTReport struct {
	// Title heads the summary section ("Pool Members").
	Title string
	// Lines are the section's lines.
	Lines []string
	// Detail are entries for the detail log.
	Detail []DetailEntry
}

// sutFile is the file detail entries of the SUT are attributed to.
const sutFile = "sut"

// writeSUTEntries writes entries to the detail log.
func (l *logs) writeSUTEntries(entries []DetailEntry) {
	for _, e := range entries {
		l.detail(e.Key, anyValue(e.Value), levelInfo, sutFile)
	}
}

// writeSUTSummary writes a SUT's summary section.
func (l *logs) writeSUTSummary(r SUTReport) {
	if r.Title == "" && len(r.Lines) == 0 {
		return
	}
	l.summaryLine("\n================================================\n" + r.Title + "\n================================================")
	for _, line := range r.Lines {
		l.summaryLine(line)
	}
}

// anyValue renders v as a log value.
func anyValue(v any) value {
	switch x := v.(type) {
	case string:
		return vString(x)
	case bool:
		return vBool(x)
	case int:
		return vInt(int64(x))
	case int64:
		return vInt(x)
	case uint64:
		return vUint(x)
	case float64:
		return vDouble(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return vString("unencodable value: " + err.Error())
	}
	return func(dst []byte, _ bool) []byte { return append(dst, b...) }
}
