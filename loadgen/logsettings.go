package loadgen

import (
	"errors"
	"io"
	"time"
)

// LogSettings says where the logs go. The files are
// <OutDir>/<Prefix>[<datetime>_]{summary,detail}<Suffix>.txt and
// <Prefix>[<datetime>_]accuracy<Suffix>.json, plus trace<Suffix>.json when
// EnableTrace is set, as the official LoadGen names them.
type LogSettings struct {
	// OutDir is the directory the logs are written to. It must exist; the
	// LoadGen never writes to the working directory implicitly.
	OutDir string
	// Prefix starts every file name; empty means the official
	// "mlperf_log_".
	Prefix string
	// Suffix ends every file name before the extension.
	Suffix string
	// PrefixWithDatetime inserts the test's date and time after Prefix.
	PrefixWithDatetime bool
	// SummaryCopy and DetailCopy, when set, receive a copy of the summary
	// and detail logs as they are written (the official copy_*_to_stdout).
	SummaryCopy io.Writer
	DetailCopy  io.Writer
	// Console receives what the official LoadGen prints to stdout: the
	// print_timestamps lines. Nil drops them.
	Console io.Writer
	// EnableTrace writes a Chrome trace (chrome://tracing) of every sample.
	// The official LoadGen traces by default; here it is opt-in because it
	// is large.
	EnableTrace bool
	// Location is the time zone of test_datetime and the file-name
	// datetime; nil means time.Local, as the official uses local time.
	Location *time.Location
	// PID is the pid and tid written in detail log lines; 0 means the
	// process id.
	PID int
	// Version describes the LoadGen build in the loadgen_* detail keys;
	// the zero value means the Go module's build information.
	Version VersionInfo
}

// VersionInfo is what the detail log reports about the LoadGen build.
type VersionInfo struct {
	Version        string
	GitRevision    string
	BuildDateLocal string
	BuildDateUTC   string
	GitCommitDate  string
	GitLog         string
	GitStatus      string
	FileSHA1       map[string]string
}

// ErrNoOutDir is returned when LogSettings.OutDir is empty.
var ErrNoOutDir = errors.New("log settings: no output directory")

func (l LogSettings) prefix() string {
	if l.Prefix == "" {
		return "mlperf_log_"
	}
	return l.Prefix
}

func (l LogSettings) location() *time.Location {
	if l.Location == nil {
		return time.Local
	}
	return l.Location
}
